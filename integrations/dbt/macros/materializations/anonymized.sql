{#-
  materialized='anonymized': the model's SQL is the source of an anonymizer release, and the
  model's relation is the release's published view.

      {{ config(materialized='anonymized', spec='releases/adult_k5.yml') }}
      select * from {{ ref('stg_adult') }}

  spec: the release spec, a YAML file's path relative to the project's folder, or the spec
  itself as a mapping (in the model's config block or properties file). It names no source
  and no output view or schema: the model's SQL and its dbt schema and alias say those.
  plugin: the name of the profile's plugin anonymizer.dbt_plugin (default 'dbt_plugin', the
  module's last part; its alias, if the profile gives it one).

  The model's rows are stored as the table <alias>__anon_source in the model's schema and
  committed; the plugin then runs the release on dbt's database (anonymizer.dbt.run_model):
  it verifies every privacy model of the spec in SQL and only then publishes, in one
  transaction, a snapshot, the view at the model's relation and an audit row; it records the
  spec's k, quasi-identifiers and l-diversity models for the release tests
  (anonymizer.release_k_anonymous, anonymizer.release_l_diverse), and drops the table of
  rows. A failed verification fails the model with the anonymizer's summary, and nothing
  published changes. An unchanged spec and data publish nothing new.

  A table at the model's relation (as the model was before, materialized as a table) is
  dropped first; a view there that the release did not publish is refused by the release.
-#}
{% materialization anonymized, adapter='duckdb' %}
  {%- set spec = config.get('spec') -%}
  {%- if spec is none -%}
    {{ exceptions.raise_compiler_error("anonymized model " ~ this ~ ": config spec is required (a release spec's path, "
                                       ~ "relative to the project, or the spec itself)") }}
  {%- endif -%}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set source_relation = make_intermediate_relation(this.incorporate(type='table'), suffix='__anon_source') -%}
  {%- set existing_relation = load_cached_relation(this) -%}

  {{ drop_relation_if_exists(load_cached_relation(source_relation)) }}
  {%- if existing_relation is not none and existing_relation.type != 'view' %}
    {{ drop_relation_if_exists(existing_relation) }}
  {%- endif %}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- `BEGIN` happens here:
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('anon_source') -%}
    {{ get_create_table_as_sql(False, source_relation, sql) }}
  {%- endcall %}

  -- the release reads the model's rows on a cursor of its own: they must be committed
  {{ adapter.commit() }}
  {% do adapter.store_relation(config.get('plugin', 'dbt_plugin'), target_relation, [], '', 'anonymized',
                               {'spec': spec, 'source': source_relation.identifier}) %}

  -- the view now published, read in a new transaction (which the post-hooks join)
  {% call statement('main') -%}
    select count(*) as published_rows from {{ target_relation }}
  {%- endcall %}
  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
