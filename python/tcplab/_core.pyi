# Types of the Rust extension (crates/tcplab-py/src/lib.rs), for type checkers; keep in step.

from collections.abc import Callable

__version__: str
UDP_MAX_PAYLOAD: int
__build__: str

class ScenarioError(ValueError):
    """The scenario is invalid; args are (field, message)."""

class InvariantError(RuntimeError):
    """A simulator invariant broke (a bug)."""

def run_scenario(
    text: str,
    seed: int | None = None,
    out_dir: str | None = None,
    max_memory: int | None = None,
    progress: Callable[[float, float], None] | None = None,
) -> str: ...
def run_scenario_traces(
    text: str, seed: int | None = None, max_memory: int | None = None
) -> tuple[str, dict[str, str]]: ...
def validate_scenario(text: str, seed: int | None = None) -> None: ...
def check_memory(text: str, seed: int | None = None, max_memory: int | None = None) -> None: ...
def memory_estimate(
    text: str, seed: int | None = None, streamed: bool = False
) -> list[tuple[str, str, int]]: ...
def parse_quantity(text: str, kind: str) -> float: ...
