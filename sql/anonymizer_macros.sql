-- anonymizer macro library: measure and generalize tables with plain SQL in DuckDB.
--
-- Load it into any database once, then no Python is needed:
--     .read anonymizer_macros.sql                      (DuckDB CLI; `anonymizer macros path` prints where it is)
--     anonymizer macros install --db warehouse.duckdb  (the same, from the shell)
--
-- Conventions
--   * A table is named by a string, as DuckDB's query_table() reads it: 'adult',
--     'sales.people', '"my schema"."my table"'.
--   * Columns are named by lists of strings: ['age', 'zip code']. No macro builds SQL text
--     from them: COLUMNS(lambda ...) picks the columns by name, so any name works.
--     An unknown or repeated name is an error naming the list (qis, sensitive, ...); an
--     empty list, or one of unknown names only, stops earlier in DuckDB's binder
--     ("... resulted in an empty set of columns", showing the names given).
--   * Equivalence classes group the rows whose quasi-identifiers (QIs) are all equal (NULL
--     counts as a value); a class is shown as a STRUCT of its QI values.
--   * Sensitive values are compared as text (a value's VARCHAR form); the ordered distance
--     of t-closeness orders them by their own type.
--
-- Table macros (measure)                                 one row per
--   anon_classes(tbl, qis)                                class: class, size
--   anon_k(tbl, qis)                                      table: rows, classes, k, average_class_size, discernibility
--   anon_class_profile(tbl, qis)                          class size: size, classes, rows, share_of_rows
--   anon_risk_classes(tbl, qis, population := NULL)      class: class, size, population_size, prosecutor_risk, journalist_risk
--   anon_risk(tbl, qis, threshold := 0.2, population := NULL)
--                                                         attacker model: model, highest, lowest, average, records_at_risk,
--                                                         classes_at_risk, share_at_risk, threshold, population
--   anon_prosecutor_risk(tbl, qis, threshold := 0.2)      table: highest, average, threshold, records_at_risk, share_at_risk
--   anon_risky_classes(tbl, qis, threshold := 0.2, population := NULL)
--                                                         class above the threshold: as anon_risk_classes
--   anon_record_risk(tbl, qis, population := NULL)        row of tbl: its columns, prosecutor_risk, journalist_risk
--   anon_presence(tbl, qis, population)                   table: population, k_map, delta_min, delta_max
--   anon_sensitive_counts(tbl, qis, sensitive)            class, attribute and value: class, attribute, value, n
--   anon_l_classes(tbl, qis, sensitive, c := 2)           class and attribute: class, attribute, size, distinct_l, entropy_l, recursive_l
--   anon_l_diversity(tbl, qis, sensitive, c := 2)         attribute: attribute, distinct_l, entropy_l, recursive_l, c
--   anon_value_counts(tbl, sensitive)                     attribute and value: attribute, value, n
--   anon_value_ranks(tbl, sensitive)                      attribute and value: attribute, value, rnk, m
--   anon_t_classes(tbl, qis, sensitive, distance := 'equal', reference := NULL)
--                                                         class and attribute: class, attribute, size, emd
--   anon_t_closeness(tbl, qis, sensitive, distance := 'equal', reference := NULL)
--                                                         attribute: attribute, t, distance, reference
--   anon_ncp_numeric(published, original, qis)            QI: attribute, released, suppressed, ncp_sum, ncp
--   anon_ncp_categorical(published, original, qis)        QI: attribute, released, suppressed, ncp_sum, ncp
--   anon_release(name, version := NULL, audit := '_anon_releases._audit')   the audit row of a release
-- Table macros (differentially private counts, sums and means; the noise is a parameter)
--   anon_dp_count(tbl, dims, person, noise, ...)         cell: its dims, count
--   anon_dp_sum(tbl, dims, person, value, lo, hi, noise, ...)   cell: its dims, sum
--   anon_dp_mean(tbl, dims, person, value, lo, hi, count_noise, sum_noise, ...)   cell: its dims, count, mean
--   anon_dp_cells(tbl, dims, person, ...)                cell: the TRUE bounded aggregates (never publish them)
--   anon_dp_declared(tbl, dims, keys := NULL)            cell: i, cell (the cells the noise lists follow)
-- Scalar macros (generalize one value)
--   anon_interval(x, w), anon_interval_low(x, w), anon_interval_high(x, w)
--   anon_mask(s, n), anon_top_code(x, top), anon_bottom_code(x, bottom), anon_date_trunc(d, unit)
-- Helpers
--   anon_columns(tbl), anon_require(tbl, cols, field)
--
-- Every figure here is the one the Python engine reports (`anonymizer check`, a release's
-- summary); tests/test_macros.py holds the two to each other.

-- ---------------------------------------------------------------------------------------
-- Helpers

-- anon_columns(tbl): the column names of `tbl`, one row: names VARCHAR[] (works on an empty
-- table too: the LEFT JOIN keeps one row of NULLs, and a NULL field keeps its key).
CREATE OR REPLACE MACRO anon_columns(tbl) AS TABLE
SELECT json_keys(to_json(struct_pack(*COLUMNS(* EXCLUDE (__anon_one))))) AS names
FROM (SELECT 1 AS __anon_one) LEFT JOIN (SELECT * FROM query_table(tbl) LIMIT 1) ON true;

-- anon_require(tbl, cols, field): one row (ok = true) when `cols` is a non-empty list of
-- distinct column names of `tbl`; otherwise an error naming `field` and the problem.
CREATE OR REPLACE MACRO anon_require(tbl, cols, field) AS TABLE
SELECT CASE
    WHEN cols IS NULL OR len(cols) = 0
        THEN error(field || ': list at least one column of ' || tbl)
    WHEN len(list_filter(cols, lambda x_: NOT list_contains(names, x_))) > 0
        THEN error(field || ': unknown column(s) '
                   || array_to_string(list_filter(cols, lambda x_: NOT list_contains(names, x_)), ', ')
                   || ' in table ' || tbl || '; it has ' || array_to_string(names, ', '))
    WHEN len(list_distinct(cols)) < len(cols)
        THEN error(field || ': lists a column twice: ' || array_to_string(cols, ', '))
    ELSE true
END AS ok
FROM anon_columns(tbl);

-- ---------------------------------------------------------------------------------------
-- k-anonymity, class profile

-- anon_classes(tbl, qis): one row per equivalence class: class (STRUCT of the QI values),
-- size (its rows). k-anonymity (Samarati and Sweeney 1998) holds when every size >= k.
CREATE OR REPLACE MACRO anon_classes(tbl, qis) AS TABLE
SELECT struct_pack(*COLUMNS(lambda x_: list_contains(qis, x_))) AS class, count(*) AS size
FROM query_table(tbl)
WHERE (SELECT ok FROM anon_require(tbl, qis, 'qis'))
GROUP BY ALL;

-- anon_k(tbl, qis): rows, classes, k (the smallest class), average_class_size and
-- discernibility (sum of squared class sizes, Bayardo and Agrawal 2005).
CREATE OR REPLACE MACRO anon_k(tbl, qis) AS TABLE
SELECT sum(size)::BIGINT AS rows,
       count(*) AS classes,
       min(size) AS k,
       sum(size) / count(*) AS average_class_size,
       sum(size::HUGEINT * size) AS discernibility
FROM anon_classes(tbl, qis);

-- anon_class_profile(tbl, qis): one row per class size, ascending: size, classes of that
-- size, rows in them, and their share of all rows.
CREATE OR REPLACE MACRO anon_class_profile(tbl, qis) AS TABLE
SELECT size,
       count(*) AS classes,
       sum(size)::BIGINT AS rows,
       sum(size) / sum(sum(size)) OVER () AS share_of_rows
FROM anon_classes(tbl, qis)
GROUP BY size
ORDER BY size;

-- ---------------------------------------------------------------------------------------
-- Re-identification risk: the prosecutor, journalist and marketer attacker models exactly as
-- ARX computes them (org.deidentifier.arx.risk.RiskModelSampleSummary; El Emam, "Guide to
-- the De-Identification of Personal Health Information", 2013).
--
-- f = a class's rows in tbl (the sample), n = tbl's rows, J = its classes; F = the rows of
-- `population` with the class's QI values. The population holds the sample's records and
-- more, at the sample's generalization (the same QI columns, by name, with the same labels);
-- without one, F = f (ARX's rule when the sample is the whole data set). A record is at risk
-- when its risk is above `threshold` (default 0.2: classes under 5 rows).

-- anon_risk_threshold(t): t as a DOUBLE, or an error unless it is a number in [0, 1] (NaN,
-- infinities and NULL are refused, as `anonymizer check --risk-threshold` refuses them).
CREATE OR REPLACE MACRO anon_risk_threshold(t) AS
    CASE WHEN t::DOUBLE BETWEEN 0 AND 1 AND NOT isnan(t::DOUBLE) THEN t::DOUBLE
         ELSE error('threshold: must be a number in [0, 1], not ' || coalesce(t::VARCHAR, 'NULL')) END;

-- anon_risk_classes(tbl, qis, population := NULL): one row per class of tbl: class, size (f),
-- population_size (F), prosecutor_risk (1/f), journalist_risk (1/F). An error when the
-- population lacks a class of tbl or holds fewer of its rows. (The two tables are stacked
-- BY NAME, so their columns may come in any order.)
CREATE OR REPLACE MACRO anon_risk_classes(tbl, qis, population := NULL) AS TABLE
SELECT class, size, population_size,
       1.0 / size AS prosecutor_risk,
       CASE WHEN population_size >= size THEN 1.0 / population_size
            ELSE error('population: ' || population || ' is not a population of ' || tbl
                       || ' at its generalization: it lacks, or holds fewer rows of, the class '
                       || class::VARCHAR) END AS journalist_risk
FROM (
    SELECT struct_pack(*COLUMNS(lambda x_: list_contains(qis, x_))) AS class,
           count(*) FILTER (WHERE __anon_sample) AS size,
           CASE WHEN population IS NULL THEN count(*) FILTER (WHERE __anon_sample)
                ELSE count(*) FILTER (WHERE NOT __anon_sample) END AS population_size
    FROM (
        SELECT COLUMNS(lambda x_: list_contains(qis, x_)), true AS __anon_sample
        FROM query_table(tbl)
        WHERE (SELECT ok FROM anon_require(tbl, qis, 'qis'))
        UNION ALL BY NAME
        SELECT COLUMNS(lambda x_: list_contains(qis, x_)), false AS __anon_sample
        FROM query_table(coalesce(population, tbl))
        WHERE population IS NOT NULL AND (SELECT ok FROM anon_require(coalesce(population, tbl), qis, 'population'))
    )
    GROUP BY 1
)
WHERE size > 0;

-- anon_risk(tbl, qis, threshold := 0.2, population := NULL): one row per attacker model
-- (prosecutor, journalist, marketer): highest, lowest, average, records_at_risk,
-- classes_at_risk, share_at_risk, threshold, population (the table F is counted in).
--   prosecutor: risk 1/f; highest 1/min f, lowest 1/max f, average J/n, records at risk
--               sum f over classes with 1/f > threshold (getProsecutorRisk);
--   journalist: risk 1/F; the same with F, but average max(J / sum F, sum(f/F) / n)
--               (getJournalistRisk); equal to the prosecutor's without a population;
--   marketer:   average = sum(f/F) / n, the expected share of records re-identified
--               (getMarketerRisk; J/n without a population); its other columns are NULL.
CREATE OR REPLACE MACRO anon_risk(tbl, qis, threshold := 0.2, population := NULL) AS TABLE
WITH c AS MATERIALIZED (SELECT * FROM anon_risk_classes(tbl, qis, population := population))
SELECT model, highest, lowest, average, records_at_risk, classes_at_risk,
       records_at_risk / (SELECT sum(size) FROM c) AS share_at_risk,
       anon_risk_threshold(threshold) AS threshold, coalesce(population, tbl) AS population
FROM (
    SELECT 1 AS o, 'prosecutor' AS model, max(prosecutor_risk) AS highest, min(prosecutor_risk) AS lowest,
           count(*) / sum(size) AS average,
           coalesce(sum(size) FILTER (WHERE prosecutor_risk > threshold), 0)::BIGINT AS records_at_risk,
           count(*) FILTER (WHERE prosecutor_risk > threshold) AS classes_at_risk
    FROM c
    UNION ALL
    SELECT 2, 'journalist', max(journalist_risk), min(journalist_risk),
           greatest(count(*) / sum(population_size), sum(size / population_size) / sum(size)),
           coalesce(sum(size) FILTER (WHERE journalist_risk > threshold), 0)::BIGINT,
           count(*) FILTER (WHERE journalist_risk > threshold)
    FROM c
    UNION ALL
    SELECT 3, 'marketer', NULL, NULL, sum(size / population_size) / sum(size), NULL, NULL
    FROM c
)
ORDER BY o;

-- anon_prosecutor_risk(tbl, qis, threshold := 0.2): the prosecutor's row of anon_risk
-- (El Emam and Dankar 2008): highest = 1/k, average = classes/rows, threshold,
-- records_at_risk (rows whose risk 1/f is above `threshold`), share_at_risk.
CREATE OR REPLACE MACRO anon_prosecutor_risk(tbl, qis, threshold := 0.2) AS TABLE
SELECT highest, average, anon_risk_threshold(threshold) AS threshold, records_at_risk, share_at_risk
FROM anon_risk(tbl, qis, threshold := threshold)
WHERE model = 'prosecutor';

-- anon_risky_classes(tbl, qis, threshold := 0.2, population := NULL): the rows of
-- anon_risk_classes whose prosecutor risk is above `threshold` (they hold every class whose
-- journalist risk is, F >= f), the riskiest first (by size, population_size, class).
CREATE OR REPLACE MACRO anon_risky_classes(tbl, qis, threshold := 0.2, population := NULL) AS TABLE
SELECT * FROM anon_risk_classes(tbl, qis, population := population)
WHERE prosecutor_risk > anon_risk_threshold(threshold)
ORDER BY size, population_size, class;

-- anon_record_risk(tbl, qis, population := NULL): every row of tbl with two more columns,
-- prosecutor_risk (1/f) and journalist_risk (1/F; 1/f without a population) of its class.
CREATE OR REPLACE MACRO anon_record_risk(tbl, qis, population := NULL) AS TABLE
SELECT t.* EXCLUDE (__anon_class), r.prosecutor_risk, r.journalist_risk
FROM (SELECT *, struct_pack(*COLUMNS(lambda x_: list_contains(qis, x_))) AS __anon_class
      FROM query_table(tbl)) AS t
JOIN anon_risk_classes(tbl, qis, population := population) AS r
    ON t.__anon_class IS NOT DISTINCT FROM r.class;

-- anon_presence(tbl, qis, population): k-map and delta-presence of the sample tbl against its
-- population table (at the same generalization), one row: k_map = min F over tbl's classes
-- (k-map holds for every k up to it: ARX's KMap without an estimator, pcount >= k; Sweeney
-- 2002), delta_min and delta_max = the range of f/F over the population's classes, 0 for a
-- population class without rows in tbl (ARX's DPresence, dmin <= f/F <= dmax; Nergiz, Atzori
-- and Clifton 2007). The errors of anon_risk_classes when the population does not hold tbl.
CREATE OR REPLACE MACRO anon_presence(tbl, qis, population) AS TABLE
WITH c AS MATERIALIZED (
    SELECT * FROM anon_risk_classes(tbl, qis,
        population := coalesce(population, error('population: name the population table of ' || tbl)))
)
SELECT population AS population,
       CAST(round(1.0 / max(journalist_risk)) AS BIGINT) AS k_map,   -- min F, through 1/F: its check runs
       CASE WHEN (SELECT count(*) FROM (SELECT DISTINCT COLUMNS(lambda x_: list_contains(qis, x_))
                                        FROM query_table(population))) > count(*) THEN 0.0
            ELSE min(size / population_size) END AS delta_min,
       max(size / population_size) AS delta_max
FROM c;

-- ---------------------------------------------------------------------------------------
-- l-diversity (Machanavajjhala et al. 2007)

-- anon_sensitive_counts(tbl, qis, sensitive): the class-wise distribution of every
-- sensitive attribute: class, attribute (its name), value (as text; NULL is a value), n.
-- (Each value travels in a one-element list: UNPIVOT drops NULL values, not [NULL].)
CREATE OR REPLACE MACRO anon_sensitive_counts(tbl, qis, sensitive) AS TABLE
SELECT __anon_class AS class, attribute, value[1] AS value, sum(__anon_n) AS n
FROM (
    UNPIVOT (
        SELECT struct_pack(*COLUMNS(lambda x_: list_contains(qis, x_))) AS __anon_class,
               [COLUMNS(lambda x_: list_contains(sensitive, x_))::VARCHAR],
               count(*) AS __anon_n
        FROM query_table(tbl)
        WHERE (SELECT ok FROM anon_require(tbl, qis, 'qis'))
          AND (SELECT ok FROM anon_require(tbl, sensitive, 'sensitive'))
        GROUP BY ALL
    )
    ON COLUMNS(* EXCLUDE (__anon_class, __anon_n))
    INTO NAME attribute VALUE value
)
GROUP BY ALL;

-- anon_l_classes(tbl, qis, sensitive, c): per class and sensitive attribute:
--   distinct_l  = distinct values (distinct l-diversity);
--   entropy_l   = exp(H), H = -sum p ln p (entropy l-diversity, Def. 4.1: H >= ln l);
--   recursive_l = with counts r_1 >= ... >= r_m, the largest j in 2..m with
--                 r_1 < c (r_j + ... + r_m), else 1 (recursive (c,l)-diversity, Def. 4.2).
CREATE OR REPLACE MACRO anon_l_classes(tbl, qis, sensitive, c := 2.0) AS TABLE
SELECT class, attribute,
       sum(n) AS size,
       count(*) AS distinct_l,
       exp(greatest(0.0, ln(sum(n)::DOUBLE) - sum(n * ln(n::DOUBLE)) / sum(n))) AS entropy_l,
       coalesce(max(j) FILTER (WHERE j >= 2 AND r1 < c * tail), 1) AS recursive_l
FROM (
    SELECT class, attribute, n,
           row_number() OVER w AS j,
           max(n) OVER (PARTITION BY class, attribute) AS r1,
           sum(n) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS tail
    FROM anon_sensitive_counts(tbl, qis, sensitive)
    WINDOW w AS (PARTITION BY class, attribute ORDER BY n DESC)
)
GROUP BY class, attribute;

-- anon_l_diversity(tbl, qis, sensitive, c): per sensitive attribute, the table's l: the
-- smallest class figure of each kind (the table is l-diverse when it is >= l).
CREATE OR REPLACE MACRO anon_l_diversity(tbl, qis, sensitive, c := 2.0) AS TABLE
SELECT attribute,
       min(distinct_l) AS distinct_l,
       min(entropy_l) AS entropy_l,
       min(recursive_l) AS recursive_l,
       c::DOUBLE AS c
FROM anon_l_classes(tbl, qis, sensitive, c := c)
GROUP BY attribute
ORDER BY list_position(sensitive, attribute);

-- ---------------------------------------------------------------------------------------
-- t-closeness (Li, Li and Venkatasubramanian 2007)
--
-- Every class's distribution is compared with a reference distribution Q: by default the
-- measured table's own; with `reference := 'schema.table'`, that table's (it must have the
-- sensitive columns, by the same names, and should hold every value the measured table
-- holds). A release compares its classes with its input (the source minus rows suppressed
-- for NULLs, before any other suppression: the adversary's prior, which suppression cannot
-- move), so `reference := '<the release's source>'` gives the figure its audit row shows.

-- anon_value_counts(tbl, sensitive): every value of every sensitive attribute over the
-- whole table (as text; NULL is a value) with its number of rows n.
CREATE OR REPLACE MACRO anon_value_counts(tbl, sensitive) AS TABLE
SELECT attribute, value[1] AS value, sum(__anon_n) AS n
FROM (
    UNPIVOT (
        SELECT [COLUMNS(lambda x_: list_contains(sensitive, x_))::VARCHAR], count(*) AS __anon_n
        FROM query_table(tbl)
        WHERE (SELECT ok FROM anon_require(tbl, sensitive, 'sensitive'))
        GROUP BY ALL
    )
    ON COLUMNS(* EXCLUDE (__anon_n))
    INTO NAME attribute VALUE value
)
GROUP BY ALL;

-- anon_value_ranks(tbl, sensitive): every value of every sensitive attribute with its rank
-- rnk = 1..m in the attribute's own order (NULL last), and m, the number of values.
CREATE OR REPLACE MACRO anon_value_ranks(tbl, sensitive) AS TABLE
SELECT attribute, value, rnk, len(vals) AS m
FROM (
    SELECT attribute, vals, unnest(vals) AS value, generate_subscripts(vals, 1) AS rnk
    FROM (
        UNPIVOT (
            SELECT list_sort(list(DISTINCT COLUMNS(lambda x_: list_contains(sensitive, x_))),
                             'ASC', 'NULLS LAST')::VARCHAR[]
            FROM query_table(tbl)
            WHERE (SELECT ok FROM anon_require(tbl, sensitive, 'sensitive'))
        )
        ON COLUMNS(*) INTO NAME attribute VALUE vals
    )
);

-- anon_t_classes(tbl, qis, sensitive, distance, reference): per class and sensitive
-- attribute, the Earth Mover's Distance between the class's distribution P and the
-- reference Q, the table's own or `reference`'s (Sec. 4.2; m = the reference's values):
--   'equal'  : EMD = 1/2 sum_i |P_i - Q_i|  (values absent from the class add Q_i);
--   'ordered': EMD = 1/(m-1) sum_{i=1..m} |sum_{j<=i} (P_j - Q_j)|  (0 when m = 1).
CREATE OR REPLACE MACRO anon_t_classes(tbl, qis, sensitive, distance := 'equal', reference := NULL) AS TABLE
WITH h AS MATERIALIZED (
    SELECT * FROM anon_sensitive_counts(tbl, qis, sensitive)
    WHERE CASE WHEN distance IN ('equal', 'ordered') THEN true
               ELSE error('distance: must be equal or ordered, not ' || coalesce(distance, 'NULL')) END
),
whole AS (
    SELECT attribute, value, sum(n) / sum(sum(n)) OVER (PARTITION BY attribute) AS q
    FROM (
        SELECT attribute, value, n FROM h WHERE reference IS NULL
        UNION ALL
        SELECT attribute, value, n FROM anon_value_counts(coalesce(reference, tbl), sensitive)
        WHERE reference IS NOT NULL
    )
    GROUP BY attribute, value
),
cls AS (
    SELECT class, attribute, value, n, n / sum(n) OVER (PARTITION BY class, attribute) AS p
    FROM h
),
equal AS (
    SELECT c.class, c.attribute, sum(c.n) AS size,
           greatest(0.0, least(1.0, 0.5 * (sum(abs(c.p - coalesce(g.q, 0.0)) - coalesce(g.q, 0.0)) + 1.0))) AS emd
    FROM cls AS c LEFT JOIN whole AS g ON c.attribute = g.attribute AND c.value IS NOT DISTINCT FROM g.value
    WHERE distance = 'equal'
    GROUP BY c.class, c.attribute
),
cum AS (
    SELECT k.class, k.attribute, k.size, r.m,
           sum(coalesce(c.p, 0.0) - g.q) OVER (PARTITION BY k.class, k.attribute ORDER BY r.rnk) AS d
    FROM (SELECT class, attribute, sum(n) AS size FROM h WHERE distance = 'ordered' GROUP BY ALL) AS k
    JOIN anon_value_ranks(coalesce(reference, tbl), sensitive) AS r ON r.attribute = k.attribute
    JOIN whole AS g ON g.attribute = r.attribute AND g.value IS NOT DISTINCT FROM r.value
    LEFT JOIN cls AS c ON c.class IS NOT DISTINCT FROM k.class AND c.attribute = k.attribute
                      AND c.value IS NOT DISTINCT FROM r.value
),
ordered AS (
    SELECT class, attribute, size,
           CASE WHEN max(m) > 1 THEN greatest(0.0, sum(abs(d)) / (max(m) - 1)) ELSE 0.0 END AS emd
    FROM cum
    GROUP BY class, attribute, size
)
SELECT class, attribute, size, emd FROM equal
UNION ALL
SELECT class, attribute, size, emd FROM ordered;

-- anon_t_closeness(tbl, qis, sensitive, distance, reference): per sensitive attribute, the
-- table's t: the largest class EMD (the table is t-close when it is <= t), the distance,
-- and the table the classes were compared with (`reference`, or `tbl` itself).
CREATE OR REPLACE MACRO anon_t_closeness(tbl, qis, sensitive, distance := 'equal', reference := NULL) AS TABLE
SELECT attribute, max(emd) AS t, distance AS distance, coalesce(reference, tbl) AS reference
FROM anon_t_classes(tbl, qis, sensitive, distance := distance, reference := reference)
GROUP BY attribute
ORDER BY list_position(sensitive, attribute);

-- ---------------------------------------------------------------------------------------
-- NCP of a generalized (published) table against its original (Xu et al. 2006; paper 000
-- Sec. 3.2.2). Per QI: ncp_sum = NCP summed over the released rows; ncp = the mean per
-- cell of the original, a suppressed row (original rows - released rows) counting 1.

-- anon_ncp_numeric(published, original, qis): numeric QIs, published as <qi>_low and
-- <qi>_high: a cell costs (high - low) / (max - min of the original column), 0 if that is 0,
-- each bound clamped into [min, max] of the original column and a NULL bound (a label such
-- as '*' that states none) read as that end, as the release's own NCP does.
CREATE OR REPLACE MACRO anon_ncp_numeric(published, original, qis) AS TABLE
WITH checked AS MATERIALIZED (
    -- Every scan below waits for these checks, so a missing column is reported by name
    -- before any cast of a column that is not numeric can fail first.
    SELECT (SELECT ok FROM anon_require(original, qis, 'qis'))
       AND (SELECT ok FROM anon_require(published,
                list_concat(list_transform(qis, lambda q_: q_ || '_low'),
                            list_transform(qis, lambda q_: q_ || '_high')), 'published columns')) AS ok
),
cells AS MATERIALIZED (
    SELECT row_number() OVER () AS __anon_g, *
    FROM (
        -- an unbounded side (NULL) as an infinity, which UNPIVOT keeps and the clamp below
        -- turns into the column's end
        SELECT coalesce(COLUMNS(lambda x_: list_contains(list_transform(qis, lambda q_: q_ || '_low'), x_))::DOUBLE,
                        '-infinity'::DOUBLE),
               coalesce(COLUMNS(lambda x_: list_contains(list_transform(qis, lambda q_: q_ || '_high'), x_))::DOUBLE,
                        'infinity'::DOUBLE),
               count(*) AS __anon_n
        FROM query_table(published)
        WHERE (SELECT ok FROM checked)
        GROUP BY ALL
    )
),
lows AS (
    UNPIVOT (SELECT __anon_g, __anon_n, COLUMNS(lambda x_: list_contains(list_transform(qis, lambda q_: q_ || '_low'), x_)) FROM cells)
    ON COLUMNS(* EXCLUDE (__anon_g, __anon_n)) INTO NAME name VALUE low
),
highs AS (
    UNPIVOT (SELECT __anon_g, COLUMNS(lambda x_: list_contains(list_transform(qis, lambda q_: q_ || '_high'), x_)) FROM cells)
    ON COLUMNS(* EXCLUDE (__anon_g)) INTO NAME name VALUE high
),
maxs AS (
    UNPIVOT (SELECT max(COLUMNS(lambda x_: list_contains(qis, x_)))::DOUBLE FROM query_table(original)
             WHERE (SELECT ok FROM checked))
    ON COLUMNS(*) INTO NAME attribute VALUE hi
),
mins AS (
    UNPIVOT (SELECT min(COLUMNS(lambda x_: list_contains(qis, x_)))::DOUBLE FROM query_table(original)
             WHERE (SELECT ok FROM checked))
    ON COLUMNS(*) INTO NAME attribute VALUE lo
),
total AS (SELECT count(*) AS rows FROM query_table(original)),
sums AS (
    SELECT left(l.name, -4) AS attribute, sum(l.__anon_n) AS released,
           sum(l.__anon_n * CASE WHEN mx.hi - mn.lo > 0
                                  THEN (least(h.high, mx.hi) - greatest(l.low, mn.lo))
                                       / (mx.hi - mn.lo)
                                  ELSE 0.0 END) AS ncp_sum
    FROM lows AS l
    JOIN highs AS h ON h.__anon_g = l.__anon_g AND left(h.name, -5) = left(l.name, -4)
    JOIN maxs AS mx ON mx.attribute = left(l.name, -4)
    JOIN mins AS mn ON mn.attribute = left(l.name, -4)
    GROUP BY ALL
)
SELECT s.attribute, s.released, t.rows - s.released AS suppressed, s.ncp_sum,
       (s.ncp_sum + (t.rows - s.released)) / t.rows AS ncp
FROM sums AS s CROSS JOIN total AS t
ORDER BY list_position(qis, s.attribute);

-- anon_ncp_categorical(classes, original, qis): categorical QIs, read from a release's
-- class table (view <view>_classes: one row per class with class_size and <qi>_count, how
-- many original values the class's label covers): a cell covering s values costs s / |A|
-- (|A| = distinct values of the original column), 0 when s = 1.
CREATE OR REPLACE MACRO anon_ncp_categorical(classes, original, qis) AS TABLE
WITH sizes AS (
    UNPIVOT (
        SELECT COLUMNS(lambda x_: list_contains(list_transform(qis, lambda q_: q_ || '_count'), x_)),
               class_size AS __anon_n
        FROM query_table(classes)
        WHERE (SELECT ok FROM anon_require(original, qis, 'qis'))
          AND (SELECT ok FROM anon_require(classes, list_append(list_transform(qis, lambda q_: q_ || '_count'),
                                                               'class_size'), 'class table columns'))
    )
    ON COLUMNS(* EXCLUDE (__anon_n)) INTO NAME name VALUE size
),
domains AS (
    UNPIVOT (SELECT count(DISTINCT COLUMNS(lambda x_: list_contains(qis, x_))) FROM query_table(original))
    ON COLUMNS(*) INTO NAME attribute VALUE m
),
total AS (SELECT count(*) AS rows FROM query_table(original)),
sums AS (
    SELECT left(s.name, -6) AS attribute, sum(s.__anon_n) AS released,
           sum(s.__anon_n * CASE WHEN s.size = 1 THEN 0.0 ELSE s.size / d.m END) AS ncp_sum
    FROM sizes AS s JOIN domains AS d ON d.attribute = left(s.name, -6)
    GROUP BY ALL
)
SELECT s.attribute, s.released, t.rows - s.released AS suppressed, s.ncp_sum,
       (s.ncp_sum + (t.rows - s.released)) / t.rows AS ncp
FROM sums AS s CROSS JOIN total AS t
ORDER BY list_position(qis, s.attribute);

-- ---------------------------------------------------------------------------------------
-- Releases

-- anon_release(name, version, audit): the audit row of release `name`: its latest version,
-- or `version`. Columns: release, version, view_name, snapshot, spec_hash,
-- source_fingerprint, algorithm, parameters, figures, rows_in, rows_out, suppressed,
-- timings, created_at. `audit` names the audit table of another snapshot schema.
CREATE OR REPLACE MACRO anon_release(name, version := NULL, audit := '_anon_releases._audit') AS TABLE
SELECT *
FROM query_table(audit) AS a
WHERE a.release = name AND (version IS NULL OR a.version = version)
ORDER BY a.version DESC
LIMIT 1;

-- ---------------------------------------------------------------------------------------
-- Differential privacy: counts, sums and means by cells of `dims`, each person's contribution
-- bounded first (the dp-aggregates algorithm of anonymizer/families/aggregates, in plain SQL).
--
-- No macro draws noise: SQL has no secret, unreplayable source (random() follows setseed()).
-- The noise is a parameter, a list of whole numbers, one per cell, drawn by the caller from
-- a cryptographically secure source at the scale the sensitivity and epsilon set:
-- anonymizer.dp_count / dp_sum / dp_mean (Python) and `anonymizer dp count|sum|mean` draw
-- it, spend epsilon from the budget ledger, and call these macros. A noise list used twice
-- is no longer private: draw a fresh one for every query.
--
-- Contribution bounding: each `person` (a column name) keeps at most groups_per_person
-- cells and rows_per_group rows in each, chosen by md5(key || person || cell) and md5(key ||
-- person || the row's units), a function of that person's rows alone (so one person changes at most
-- groups_per_person cells, by at most rows_per_group rows each). A measured value is clamped
-- to [lo, hi] and rounded to a grid of 2^20 steps of max(|lo|, |hi|) (its units), so a row
-- adds at most 2^20 units to a sum. Sensitivities (L1): count G R, sum G R 2^20 units,
-- persons per cell (private selection) G.
--
-- Cells: `keys` (a table whose columns include `dims`, with their types; public, never derived
-- from the data: a cell listed there is published even if one person makes it) declares them,
-- each published, empty ones too; without `keys` the cells are the data's, each published only when its count of
-- persons plus selection_noise reaches `threshold` (private selection: a cell one person
-- makes appears with probability at most delta). The i-th cell, in the order of its dims
-- (as anon_dp_declared numbers them), takes the i-th draw of every noise list.

-- anon_dp_declared(tbl, dims, keys): the cells, numbered: i, cell (STRUCT of the dims); the
-- rows of `keys` (a table declaring them: public, never derived from the data), or without it
-- the data's own. Cells are compared as typed values, as GROUP BY compares them; whoever draws
-- the noise counts them here.
CREATE OR REPLACE MACRO anon_dp_declared(tbl, dims, keys := NULL) AS TABLE
SELECT row_number() OVER (ORDER BY __cell) AS i, __cell AS cell
FROM (SELECT DISTINCT struct_pack(*COLUMNS(lambda x_: list_contains(dims, x_))) AS __cell
      FROM query_table(coalesce(keys, tbl))
      WHERE (SELECT ok FROM anon_require(coalesce(keys, tbl), dims, 'dims')));

-- anon_dp_cells(tbl, dims, person, value, lo, hi, groups_per_person, rows_per_group, keys,
-- key): one row per cell of anon_dp_declared: i, cell, persons, rows, units (the sum of
-- `value` in units). Rows whose person is NULL are left out (they name no one person), and so
-- are, for a sum or a mean, rows whose value is NULL. The TRUE aggregates of the bounded rows:
-- for the noisy macros and for tests; never publish them.
CREATE OR REPLACE MACRO anon_dp_cells(tbl, dims, person, value := NULL, lo := NULL, hi := NULL,
                                      groups_per_person := 1, rows_per_group := 1, keys := NULL,
                                      key := '') AS TABLE
WITH picked AS (
    SELECT struct_pack(*COLUMNS(lambda x_: list_contains(dims, x_))) AS __cell,
           struct_pack(*COLUMNS(lambda x_: x_ = person)) AS __person,
           struct_pack(*COLUMNS(lambda x_: x_ = coalesce(value, person))) AS __value
    FROM query_table(tbl)
    WHERE (SELECT ok FROM anon_require(tbl, dims, 'dims'))
      AND (SELECT ok FROM anon_require(tbl, [person], 'person'))
      AND (SELECT ok FROM anon_dp_require(groups_per_person, rows_per_group, value, lo, hi))
),
r AS (
    SELECT __cell, __person,
           CASE WHEN value IS NULL THEN 0
                ELSE round(least(greatest(struct_extract(__value, coalesce(value, person))::DOUBLE, lo), hi)
                           / (greatest(abs(lo), abs(hi)) / 1048576))::BIGINT END AS __units
    FROM picked
    WHERE struct_extract(__person, person) IS NOT NULL
      AND (value IS NULL OR struct_extract(__value, coalesce(value, person)) IS NOT NULL)
),
cells_of_person AS (
    SELECT __person, __cell,
           row_number() OVER (PARTITION BY __person ORDER BY md5(key || __person::VARCHAR || __cell::VARCHAR)) AS __nth
    FROM (SELECT DISTINCT __person, __cell FROM r)
),
bounded AS (   -- a person's rows of one cell differ only by their units: the draw orders by those
    SELECT r.*, row_number() OVER (PARTITION BY r.__person, r.__cell
                                   ORDER BY md5(key || r.__person::VARCHAR || r.__units::VARCHAR)) AS __nth
    FROM r
    JOIN cells_of_person AS c ON c.__person = r.__person AND c.__cell IS NOT DISTINCT FROM r.__cell
                              AND c.__nth <= groups_per_person
),
totals AS (
    SELECT __cell, count(DISTINCT __person) AS persons, count(*) AS rows, sum(__units)::BIGINT AS units
    FROM bounded
    WHERE __nth <= rows_per_group
    GROUP BY __cell
)
SELECT d.i, d.cell, coalesce(t.persons, 0) AS persons, coalesce(t.rows, 0) AS rows, coalesce(t.units, 0) AS units
FROM anon_dp_declared(tbl, dims, keys := keys) AS d
LEFT JOIN totals AS t ON t.__cell IS NOT DISTINCT FROM d.cell
ORDER BY d.i;

-- anon_dp_require(groups_per_person, rows_per_group, value, lo, hi): one row (ok = true), or an
-- error naming the parameter: the bounds whole numbers >= 1, lo < hi given with a value.
CREATE OR REPLACE MACRO anon_dp_require(groups_per_person, rows_per_group, value, lo, hi) AS TABLE
SELECT CASE
    WHEN NOT (groups_per_person::DOUBLE >= 1 AND groups_per_person::DOUBLE = floor(groups_per_person::DOUBLE))
        THEN error('groups_per_person: must be a whole number of at least 1')
    WHEN NOT (rows_per_group::DOUBLE >= 1 AND rows_per_group::DOUBLE = floor(rows_per_group::DOUBLE))
        THEN error('rows_per_group: must be a whole number of at least 1')
    WHEN value IS NOT NULL AND NOT coalesce(isfinite(lo::DOUBLE) AND isfinite(hi::DOUBLE) AND lo::DOUBLE < hi::DOUBLE, false)
        THEN error('lo, hi: the bounds of ' || value || ' must be finite numbers with lo < hi (never read from the data)')
    ELSE true
END AS ok;

-- anon_dp_noisy(...): every noisy figure of the cells published (the three macros below pick
-- theirs): cell, count (rows + count_noise[i], at least 0), sum ((units + sum_noise[i]) units)
-- and mean (sum over count, clamped to [lo, hi]). Without keys, only the cells whose persons +
-- selection_noise[i] reach threshold. A noise list shorter than the cells is an error.
CREATE OR REPLACE MACRO anon_dp_noisy(tbl, dims, person, count_noise, sum_noise, value, lo, hi, keys,
                                      selection_noise, threshold, groups_per_person, rows_per_group, key) AS TABLE
WITH c AS (
    SELECT * FROM anon_dp_cells(tbl, dims, person, value := value, lo := lo, hi := hi,
                                groups_per_person := groups_per_person, rows_per_group := rows_per_group,
                                keys := keys, key := key)
),
checked AS (
    SELECT CASE
        WHEN keys IS NULL AND (selection_noise IS NULL OR threshold IS NULL)
            THEN error('selection_noise, threshold: the cells are the data''s (no keys): give the noise and the '
                       || 'threshold of the private selection, or declare the cells with keys')
        WHEN len(coalesce(count_noise, [])) < (SELECT count(*) FROM c) AND count_noise IS NOT NULL
            THEN error('noise: a list shorter than the cells (one draw per cell)')
        WHEN len(coalesce(sum_noise, [])) < (SELECT count(*) FROM c) AND sum_noise IS NOT NULL
            THEN error('noise: a list shorter than the cells (one draw per cell)')
        WHEN keys IS NULL AND len(selection_noise) < (SELECT count(*) FROM c)
            THEN error('selection_noise: a list shorter than the cells (one draw per cell)')
        ELSE true
    END AS ok
),
noisy AS (
    SELECT cell,
           greatest(rows + count_noise[i], 0) AS count,
           (units + sum_noise[i]) * (greatest(abs(lo), abs(hi)) / 1048576) AS sum
    FROM c
    WHERE (SELECT ok FROM checked)
      AND (keys IS NOT NULL OR persons + selection_noise[i] >= threshold)
)
SELECT cell, count, sum, least(greatest(sum / greatest(count, 1), lo), hi) AS mean
FROM noisy
UNION ALL   -- no rows; the checks run even when a filter above keeps none
SELECT NULL, NULL, NULL, NULL WHERE NOT (SELECT ok FROM checked);

-- anon_dp_count(tbl, dims, person, noise, keys := NULL, selection_noise := NULL,
-- threshold := NULL, groups_per_person := 1, rows_per_group := 1, key := ''): one row per
-- cell published: its dims, count. noise: discrete Laplace of scale G R / epsilon.
CREATE OR REPLACE MACRO anon_dp_count(tbl, dims, person, noise, keys := NULL, selection_noise := NULL,
                                      threshold := NULL, groups_per_person := 1, rows_per_group := 1,
                                      key := '') AS TABLE
SELECT unnest(cell), count
FROM anon_dp_noisy(tbl, dims, person, noise, NULL, NULL, NULL, NULL, keys, selection_noise, threshold,
                   groups_per_person, rows_per_group, key);

-- anon_dp_sum(tbl, dims, person, value, lo, hi, noise, ...): one row per cell published: its
-- dims, sum of `value` clamped to [lo, hi]. noise: in units, scale G R 2^20 / epsilon.
CREATE OR REPLACE MACRO anon_dp_sum(tbl, dims, person, value, lo, hi, noise, keys := NULL,
                                    selection_noise := NULL, threshold := NULL, groups_per_person := 1,
                                    rows_per_group := 1, key := '') AS TABLE
SELECT unnest(cell), sum
FROM anon_dp_noisy(tbl, dims, person, NULL, noise, value, lo, hi, keys, selection_noise, threshold,
                   groups_per_person, rows_per_group, key);

-- anon_dp_mean(tbl, dims, person, value, lo, hi, count_noise, sum_noise, ...): one row per cell
-- published: its dims, count and mean of `value` (noisy sum over noisy count, clamped).
CREATE OR REPLACE MACRO anon_dp_mean(tbl, dims, person, value, lo, hi, count_noise, sum_noise, keys := NULL,
                                     selection_noise := NULL, threshold := NULL, groups_per_person := 1,
                                     rows_per_group := 1, key := '') AS TABLE
SELECT unnest(cell), count, mean
FROM anon_dp_noisy(tbl, dims, person, count_noise, sum_noise, value, lo, hi, keys, selection_noise, threshold,
                   groups_per_person, rows_per_group, key);

-- ---------------------------------------------------------------------------------------
-- Scalar macros: generalize one value (the same labels the hierarchy builders produce)

-- anon_interval(x, w): the interval of width w holding x, anchored at 0 (t = floor(x / w)):
-- integer types '[lo, hi]' with lo = ceil(t w), hi = ceil((t+1) w) - 1; other numbers
-- '[t w, (t+1) w)'. anon_interval_low / _high give the bounds (high exclusive for non-integers).
CREATE OR REPLACE MACRO anon_is_integer(x) AS
    typeof(x) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT',
                  'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT');
CREATE OR REPLACE MACRO anon_interval_low(x, w) AS
    CASE WHEN NOT w > 0 THEN error('anon_interval: width must be > 0')
         WHEN anon_is_integer(x) THEN ceil(floor(x / w) * w)
         ELSE floor(x / w) * w END;
CREATE OR REPLACE MACRO anon_interval_high(x, w) AS
    CASE WHEN NOT w > 0 THEN error('anon_interval: width must be > 0')
         WHEN anon_is_integer(x) THEN ceil((floor(x / w) + 1) * w) - 1
         ELSE (floor(x / w) + 1) * w END;
CREATE OR REPLACE MACRO anon_interval(x, w) AS
    CASE WHEN x IS NULL THEN NULL
         WHEN anon_is_integer(x)
             THEN '[' || anon_interval_low(x, w)::BIGINT::VARCHAR || ', '
                      || anon_interval_high(x, w)::BIGINT::VARCHAR || ']'
         ELSE '[' || anon_interval_low(x, w)::DOUBLE::VARCHAR || ', '
                  || anon_interval_high(x, w)::DOUBLE::VARCHAR || ')' END;

-- anon_mask(s, n): the last n characters replaced by '*' (21357 -> 213** for n = 2);
-- a value shorter than n is all '*'.
CREATE OR REPLACE MACRO anon_mask(s, n) AS
    CASE WHEN n < 0 THEN error('anon_mask: n must be >= 0')
         ELSE left(s::VARCHAR, greatest(length(s::VARCHAR) - n, 0)::BIGINT)
              || repeat('*', least(n, length(s::VARCHAR))::BIGINT) END;

-- anon_top_code(x, top) / anon_bottom_code(x, bottom): values above `top` become `top`,
-- values below `bottom` become `bottom` (top and bottom coding); NULL stays NULL.
CREATE OR REPLACE MACRO anon_top_code(x, top) AS CASE WHEN x > top THEN top ELSE x END;
CREATE OR REPLACE MACRO anon_bottom_code(x, bottom) AS CASE WHEN x < bottom THEN bottom ELSE x END;

-- anon_date_trunc(d, unit): a DATE or TIMESTAMP as its day (2020-03-14), month (2020-03),
-- quarter (2020-Q1), year (2020), decade (2020s) or century (2000-2099).
CREATE OR REPLACE MACRO anon_date_trunc(d, unit) AS
    CASE unit
        WHEN 'day' THEN strftime(d, '%Y-%m-%d')
        WHEN 'month' THEN strftime(d, '%Y-%m')
        WHEN 'quarter' THEN year(d)::VARCHAR || '-Q' || quarter(d)::VARCHAR
        WHEN 'year' THEN year(d)::VARCHAR
        WHEN 'decade' THEN (year(d) // 10 * 10)::VARCHAR || 's'
        WHEN 'century' THEN (year(d) // 100 * 100)::VARCHAR || '-' || (year(d) // 100 * 100 + 99)::VARCHAR
        ELSE error('anon_date_trunc: unit must be day, month, quarter, year, decade or century, not '
                   || coalesce(unit, 'NULL'))
    END;
