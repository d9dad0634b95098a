{#-
  Arguments of the anonymizer's SQL macros (installed on the connection by the profile's
  plugin anonymizer.dbt_plugin). They take a table as a name string, which DuckDB's
  query_table() reads, and columns as lists of name strings; these helpers write those
  strings as SQL string literals. No identifier SQL is built here: quoting is the macros'
  business (they pick columns by name with COLUMNS(lambda ...)).
-#}

{#- A SQL string literal holding `value` (single quotes doubled). -#}
{% macro anon_string(value) -%}
    '{{ value | string | replace("'", "''") }}'
{%- endmacro %}

{#- A DuckDB list of string literals, one per name of `names` (a list, or one name). -#}
{% macro anon_string_list(names, argument) -%}
    {%- if names is string -%}
        {%- set names = [names] -%}
    {%- endif -%}
    {%- if names is not iterable or names is mapping or names | length == 0 -%}
        {{ exceptions.raise_compiler_error(argument ~ " must list at least one column name, got " ~ names) }}
    {%- endif -%}
    [{% for name in names %}{{ anonymizer.anon_string(name) }}{% if not loop.last %}, {% endif %}{% endfor %}]
{%- endmacro %}

{#- The fully qualified name of the tested relation, as a string literal for query_table(). -#}
{% macro anon_table_literal(model, test_name) -%}
    {%- if model is string or model.render is not defined -%}
        {#- a `where:` config makes `model` a subquery, which query_table() cannot read -#}
        {{ exceptions.raise_compiler_error(test_name ~ " reads a table by name: the where config is not supported") }}
    {%- endif -%}
    {{ anonymizer.anon_string(model.render()) }}
{%- endmacro %}

{#- `value` checked to be a number (at least `minimum`) and written as a SQL number. -#}
{% macro anon_number(value, argument, minimum=none) -%}
    {%- if value is not number or value is sameas true or value is sameas false -%}
        {{ exceptions.raise_compiler_error(argument ~ " must be a number, got " ~ value) }}
    {%- endif -%}
    {%- if minimum is not none and value < minimum -%}
        {{ exceptions.raise_compiler_error(argument ~ " must be at least " ~ minimum ~ ", got " ~ value) }}
    {%- endif -%}
    {{ value }}
{%- endmacro %}
