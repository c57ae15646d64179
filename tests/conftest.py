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
# workers, seconds of one worker's time: the notebooks and the site about 830, the 10 ms reference batch
# about 560, the step halvings about 360, the replica grid about 300, the dynamics rows about 280 (100
# alone on an idle core since their classic-recovery twins were folded in), Morris' validation items about
# 250; the suite took 35.2 minutes with pytest-xdist's order.
LONGEST_FIRST = ("test_notebooks.py", "test_sim_reference_10ms.py", "test_sim_step.py", "test_sim_replica_grid.py",
                 "test_sim_reference_dynamics.py", "test_sim_validation.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
