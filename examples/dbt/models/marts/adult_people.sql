-- One row per released person, for analysts: the released labels, the income flag, and
-- the occupation. Read from the published view only (never from stg_adult).
select
    age as age_band,
    age_low,
    age_high,
    sex,
    marital_status,
    education,
    workclass,
    occupation,
    salary_class = '>50K' as high_income
from {{ ref('adult_release') }}
