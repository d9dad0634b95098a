{#-
  Tests of a release whose k, quasi-identifiers and l-diversity models come from the release
  spec, written once there. They read what the spec declares: the published view,
  quasi_identifiers, sensitive, k (the largest any model of the spec demands) and
  l_diversity (kind, sensitive, l, c per model), as JSON (anonymizer.dbt.privacy), from
    - a model materialized 'anonymized' (the model is the published view): its row of the
      table _anon_dbt_releases in its schema, written when the model last published;
    - a release step (a dbt Python model calling anonymizer.dbt.release): its one-row table,
      the audit row of the version it published with a JSON column `privacy`.
  They read it when they run (after the release: they depend on it), so they check the
  version now published:

      models:
        - name: adult_release                 # the release
          data_tests:
            - anonymizer.release_k_anonymous   # the published view, with the spec's k and QIs
            - anonymizer.release_l_diverse     # ... and with each l-diversity model of the spec

  On another relation that keeps the published QI and sensitive columns (a copy of the
  view, a mart), pass the release: it then tests that relation with the spec's figures.

            - anonymizer.release_k_anonymous:
                arguments: {release: "ref('adult_release')"}

  Before `execute` (while dbt parses), the release may not exist: the tests render an empty
  query then.
-#}

{#- The release's `privacy` settings (a dict): an anonymized model's row of _anon_dbt_releases
    in its schema, or else the `privacy` column of the release step's one-row table. -#}
{% macro anon_release_privacy(release, test_name) -%}
    {%- set recorded = api.Relation.create(database=release.database, schema=release.schema,
                                           identifier='_anon_dbt_releases') -%}
    {%- set tables = run_query("select count(*) from duckdb_tables() where database_name = "
                               ~ (anonymizer.anon_string(release.database) if release.database else "current_database()")
                               ~ " and schema_name = " ~ anonymizer.anon_string(release.schema)
                               ~ " and table_name = '_anon_dbt_releases'") -%}
    {%- if tables.rows[0][0] > 0 -%}
        {%- set found = run_query("select privacy from " ~ recorded ~ " where view_name = "
                                  ~ anonymizer.anon_string(release.identifier)) -%}
    {%- endif -%}
    {%- if found is not defined or found.rows | length == 0 -%}
        {%- set found = run_query("select privacy from " ~ release) -%}
    {%- endif -%}
    {%- if found.rows | length != 1 -%}
        {{ exceptions.raise_compiler_error(test_name ~ ": " ~ release ~ " must be a model materialized 'anonymized' "
                                           ~ "or hold one row (a release step's audit row, see anonymizer.dbt.release), found " ~ found.rows | length) }}
    {%- endif -%}
    {%- set value = found.rows[0][0] -%}
    {{ return(fromjson(value) if value is string else value) }}
{%- endmacro %}

{#- The string literal naming the tested table: the release's view, or the tested `model`. -#}
{% macro anon_release_tested(model, release, privacy, test_name) -%}
    {%- if release is none -%}
        {{ anonymizer.anon_string(privacy['view']) }}
    {%- else -%}
        {{ anonymizer.anon_table_literal(model, test_name) }}
    {%- endif -%}
{%- endmacro %}

{#- release_k_anonymous(model, release=none): k_anonymous with the spec's k and QIs. -#}
{% test release_k_anonymous(model, release=none) %}
{%- if execute -%}
    {%- set p = anonymizer.anon_release_privacy(release if release is not none else model, 'release_k_anonymous') -%}
{{ anonymizer.anon_k_anonymous_sql(anonymizer.anon_release_tested(model, release, p, 'release_k_anonymous'), p['quasi_identifiers'],
                        p['k'], 'release_k_anonymous') }}
{%- else -%}
select null as class, 0 as size where false
{%- endif -%}
{% endtest %}

{#- release_l_diverse(model, release=none): l_diverse for every l-diversity model of the
    spec (one union; a failing row's attribute names the sensitive column). -#}
{% test release_l_diverse(model, release=none) %}
{%- if execute -%}
    {%- set p = anonymizer.anon_release_privacy(release if release is not none else model, 'release_l_diverse') -%}
    {%- if p['l_diversity'] | length == 0 -%}
        {{ exceptions.raise_compiler_error("release_l_diverse: the release's spec declares no l-diversity model") }}
    {%- endif -%}
    {%- set tbl = anonymizer.anon_release_tested(model, release, p, 'release_l_diverse') -%}
    {%- for m in p['l_diversity'] %}
{{ anonymizer.anon_l_diverse_sql(tbl, p['quasi_identifiers'], [m['sensitive']], m['l'], m['kind'],
                      m['c'] if m['c'] is not none else 2, 'release_l_diverse') }}
{% if not loop.last %}union all{% endif %}
    {%- endfor -%}
{%- else -%}
select null as class, null as attribute, 0 as size, 0 as distinct_l, 0.0 as entropy_l, 0 as recursive_l where false
{%- endif -%}
{% endtest %}
