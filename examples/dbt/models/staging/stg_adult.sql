-- The Adult sample, typed and with snake_case column names (the release spec's names).
select
    person_id,
    age::integer as age,
    sex,
    race,
    "marital-status" as marital_status,
    education,
    "native-country" as native_country,
    workclass,
    occupation,
    "salary-class" as salary_class
from {{ ref('adult_sample') }}
