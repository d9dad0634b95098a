-- The release: the staged Adult sample, anonymized by the spec releases/adult_k5.yml and
-- published as this model's view (main.adult_release). The anonymizer checks every privacy
-- model of the spec in SQL and only then publishes, in one transaction: a snapshot
-- _anon_releases."adult_k5__v<N>", this view over it and an audit row in
-- _anon_releases._audit. A failed check fails this model (dbt skips everything downstream;
-- its message names the privacy model and the achieved figure) and leaves what was
-- published before as it was. Re-running with the same spec and data publishes nothing new.
{{ config(materialized='anonymized', spec='releases/adult_k5.yml') }}
select * from {{ ref('stg_adult') }}
