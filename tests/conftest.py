import pytest

from tcpmodels import data


@pytest.fixture(scope="session")
def reference_rows():
    """ns-3 RED reference rows with Floyd & Jacobson's drop spacing (wait=0), as float arrays."""
    rows = data.table("ns3_red_10ms")
    keep = rows["wait"] == 0
    return {k: v[keep] for k, v in rows.items() if k != "sweep"}


# The files that take longest, first.  With `-n auto --dist loadfile --no-loadscope-reorder` (the README's
# test command; without the last option pytest-xdist orders the files by their number of tests, which puts
# the few-test, long-running ones last) each worker takes the next file in this order as it finishes one, so
# the long ones start at once and the run does not wait on one of them begun last.  Measured with two
# workers on 98eb033 (the full suite 43.4 minutes, 4983 s of the workers' time), seconds of one worker's time:
# the replica grid's sets about 1010 and its motion rows 500 (then in one file: 1550; the motion rows' halved
# step, since moved there from the step study, adds about 230), the notebooks and the site 790, the step
# halvings 240, the other buffers 445 (about 260 since their 10 ms rows run 100 s), CoDel's rows 185, Morris'
# validation items 170, the dynamics rows 130 (540 with the motion rows' halvings).
LONGEST_FIRST = ("test_sim_replica_grid.py", "test_notebooks.py", "test_sim_replica_motion.py",
                 "test_sim_reference_buffers.py", "test_sim_step.py", "test_sim_codel.py", "test_sim_validation.py",
                 "test_sim_reference_dynamics.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
