"""The scaling model of ``anonymizer bench spark`` (anonymizer/bench/spark_stages.py), worked by
hand: no Spark needed."""

from __future__ import annotations

import pytest

from anonymizer.bench.spark_stages import EXECUTORS, scaling_model

# one stage of 4 tasks, 8 s of task time, 4.5 s of wall on 2 cores (2 waves of 2 s: 0.5 s beside
# its tasks); the release took 10 s, 5.5 of them outside the stage
STAGES = [(4, 8.0, 4.5)]


def test_on_the_cores_it_was_measured_on_the_model_gives_the_measured_seconds():
    model = scaling_model(STAGES, 10.0, cores=2)
    assert model["seconds"][2] == 10.0 and model["stages"][2] == 4.5


def test_the_tasks_spread_over_the_executors_and_the_rest_stays():
    model = scaling_model(STAGES, 10.0, cores=2)
    assert list(model["seconds"]) == list(EXECUTORS)
    assert model["stages"][1] == 8.5      # 4 waves of 2 s, and the 0.5 s beside them
    assert model["stages"][8] == 1.5      # the partitions raised to 8: one wave of 1 s
    assert model["stages"][64] == pytest.approx(0.5 + 8 / 64, abs=0.01)
    assert model["seconds"][64] == pytest.approx(5.5 + 0.5 + 8 / 64, abs=0.01)   # the driver's 5.5 s is the floor


def test_executors_of_several_cores_count_their_cores():
    assert scaling_model(STAGES, 10.0, cores=2, executor_cores=4)["stages"][2] == 1.5


def test_a_stage_of_no_tasks_costs_its_wall():
    assert scaling_model([(0, 0.0, 0.3)], 1.0, cores=2)["seconds"] == {e: 1.0 for e in EXECUTORS}
