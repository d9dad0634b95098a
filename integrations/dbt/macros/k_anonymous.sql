{#-
  k_anonymous(model, quasi_identifiers, k): the model is k-anonymous over the listed
  quasi-identifier columns (Samarati and Sweeney 1998): every equivalence class (rows
  agreeing on all of them; NULL counts as a value) has at least k rows.

  Fails on one row per class smaller than k: class (a STRUCT of its QI values) and size.
  Calls anon_classes() of the anonymizer's macro library (installed by the profile's
  plugin anonymizer.dbt_plugin).

      data_tests:
        - anonymizer.k_anonymous:
            arguments:
              quasi_identifiers: [age, sex, education]
              k: 5

  published_by (optional): on a source that a model publishes, such as a release's view,
  `ref('that_model')`: dbt then runs the test after that model (dbt build runs tests on
  sources first otherwise, before the view exists). Not used in the SQL.

  release_k_anonymous (release_tests.sql) takes k and the QIs from a release (an anonymized model) instead.
-#}
{% test k_anonymous(model, quasi_identifiers, k, published_by=none) %}
{{ anonymizer.anon_k_anonymous_sql(anonymizer.anon_table_literal(model, 'k_anonymous'), quasi_identifiers, k, 'k_anonymous') }}
{% endtest %}

{#- The classes of the table named by the string literal `tbl` smaller than k (see above). -#}
{% macro anon_k_anonymous_sql(tbl, quasi_identifiers, k, test_name) -%}
select class, size
from anon_classes(
    {{ tbl }},
    {{ anonymizer.anon_string_list(quasi_identifiers, test_name ~ ': quasi_identifiers') }})
where size < {{ anonymizer.anon_number(k, test_name ~ ': k', 1) }}
{%- endmacro %}
