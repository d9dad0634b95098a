-- Income by age band, computed from the published view: people, people earning more than
-- 50K, and their share. The bands are the release's 10-year age labels.
select
    age as age_band,
    age_low,
    age_high,
    count(*) as people,
    count(*) filter (where salary_class = '>50K') as high_income,
    round(count(*) filter (where salary_class = '>50K') / count(*), 4) as high_income_share
from {{ ref('adult_release') }}
group by age, age_low, age_high
order by age_low
