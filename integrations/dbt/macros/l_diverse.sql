{#-
  l_diverse(model, quasi_identifiers, sensitive, l, kind='distinct', c=2): every
  equivalence class over the quasi-identifiers is l-diverse in every listed sensitive
  attribute (Machanavajjhala et al. 2007), by one of the three definitions:
    distinct   at least l distinct values;
    entropy    entropy -sum p ln p >= ln l (within 1e-9, as the anonymizer's engine judges);
    recursive  recursive (c,l)-diversity: r_1 < c (r_l + ... + r_m) for the class's value
               counts r_1 >= r_2 >= ... >= r_m.

  Fails on one row per class and sensitive attribute that falls short: class, attribute,
  size and the three figures. Calls anon_l_classes() of the anonymizer's macro library
  (installed by the profile's plugin anonymizer.dbt_plugin).

      data_tests:
        - anonymizer.l_diverse:
            arguments:
              quasi_identifiers: [age, sex, education]
              sensitive: [occupation]
              l: 2
              kind: entropy

  published_by (optional): as in k_anonymous, `ref('the_model')` that publishes a source.

  release_l_diverse (release_tests.sql) takes the models from a release (an anonymized model) instead.
-#}
{% test l_diverse(model, quasi_identifiers, sensitive, l, kind='distinct', c=2, published_by=none) %}
{{ anonymizer.anon_l_diverse_sql(anonymizer.anon_table_literal(model, 'l_diverse'), quasi_identifiers, sensitive, l, kind, c, 'l_diverse') }}
{% endtest %}

{#- The classes of the table named by the string literal `tbl` short of l (see above). -#}
{% macro anon_l_diverse_sql(tbl, quasi_identifiers, sensitive, l, kind, c, test_name) -%}
{%- if kind not in ('distinct', 'entropy', 'recursive') -%}
    {{ exceptions.raise_compiler_error(test_name ~ ": kind must be distinct, entropy or recursive, got " ~ kind) }}
{%- endif -%}
select class, attribute, size, distinct_l, entropy_l, recursive_l
from anon_l_classes(
    {{ tbl }},
    {{ anonymizer.anon_string_list(quasi_identifiers, test_name ~ ': quasi_identifiers') }},
    {{ anonymizer.anon_string_list(sensitive, test_name ~ ': sensitive') }},
    c := {{ anonymizer.anon_number(c, test_name ~ ': c', 1) }})
{%- if kind == 'distinct' %}
where distinct_l < {{ anonymizer.anon_number(l, test_name ~ ': l', 1) }}
{%- elif kind == 'entropy' %}
where ln(entropy_l) < ln({{ anonymizer.anon_number(l, test_name ~ ': l', 1) }}) - 1e-9
{%- else %}
where recursive_l < {{ anonymizer.anon_number(l, test_name ~ ': l', 1) }}
{%- endif %}
{%- endmacro %}
