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
# workers from a fresh clone of e4793e0 (the full suite 38.7 minutes, 4610 s of the workers' time; 98eb033, before
# the motion rows ran once and the 10 ms buffer set 100 s, 43.4 minutes and 4983 s), seconds of one worker's time:
# the replica grid's sets 1040, the notebooks and the site 780 (notebook 10 alone 380), the motion rows 725, the
# other buffers 250, the step halvings 230, CoDel's rows 195, Morris' validation items 160, the mixed batches 150,
# the 10 ms references 140, the fluid model 110, the step's cap 105, the dynamics rows 100.
LONGEST_FIRST = ("test_sim_replica_grid.py", "test_notebooks.py", "test_sim_replica_motion.py",
                 "test_sim_reference_buffers.py", "test_sim_step.py", "test_sim_codel.py", "test_sim_validation.py",
                 "test_sim.py", "test_sim_reference_10ms.py", "test_dynamics_sim.py", "test_sim_stepcap.py",
                 "test_sim_reference_dynamics.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
