"""The factorial analysis of Jain (1991) as Goyal et al. (1998), Sec. 8.1 apply it.

For a full factorial design (every combination of the factors' levels, each run r >= 1 times),
with y the response and N the number of observations:

- overall mean Y; main effect of level a of factor A: mean(y | A = a) - Y;
- first-order interaction of levels a, b of A, B: mean(y | a, b) - (Y + effect_a + effect_b);
- sums of squares: SSY = sum y^2 ("individual values"), SS0 = N Y^2 ("overall mean"),
  SST = SSY - SS0 ("total variation"); SSA = (N / N_A) sum_a effect_a^2; SSAB = (N / (N_A N_B))
  sum_ab interaction_ab^2; allocation of variation = SSx / SST;
- errors e = y - (Y + main effects + first-order interactions), SSE = sum e^2, with
  de = N - 1 - sum (N_A - 1) - sum (N_A - 1)(N_B - 1) degrees of freedom (6 for 4 x 2 x 3 with
  r = 1: the second-order interaction is the error term); standard error se = sqrt(SSE / de);
- standard deviation of a main effect of A: s_A = se sqrt((N_A - 1) / N); its confidence
  interval: effect -+ t[1 - alpha/2, de] s_A (90%: t[0.95, de]). An effect whose interval
  excludes 0 is significant.

``interactions=False`` leaves the interactions out of the model (they join the error).
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from tcplab.analysis.stats import column_names
from tcplab.errors import UserError

__all__ = ["AnovaResult", "Component", "Effect", "factorial_anova", "read_observations"]


@dataclass(frozen=True)
class Component:
    """One line of the allocation of variation: a factor or a pair of factors."""

    name: str
    factors: tuple[str, ...]
    ss: float
    percent: float
    dof: int


@dataclass(frozen=True)
class Effect:
    """The main effect of one level, with its confidence interval."""

    factor: str
    level: Any
    effect: float
    ci_low: float | None
    ci_high: float | None

    @property
    def significant(self) -> bool | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return not self.ci_low <= 0 <= self.ci_high


@dataclass(frozen=True)
class AnovaResult:
    response: str
    factors: tuple[str, ...]
    levels: dict[str, list[Any]]
    n: int
    replications: int
    mean: float
    ss_y: float
    ss_0: float
    ss_t: float
    components: list[Component]
    ss_e: float
    dof_e: int
    se: float | None
    confidence: float
    t_quantile: float | None
    effects: list[Effect]
    interactions: dict[tuple[str, str], pd.DataFrame] = field(repr=False)

    @property
    def percent_error(self) -> float:
        return 100 * self.ss_e / self.ss_t if self.ss_t else math.nan

    def __repr__(self) -> str:
        top = max(self.components, key=lambda c: c.percent, default=None)
        biggest = f", largest={top.name!r} ({top.percent:.1f}%)" if top else ""
        return (
            f"AnovaResult(response={self.response!r}, factors={list(self.factors)}, n={self.n}"
            f"{biggest}, error={self.percent_error:.1f}%)"
        )

    def to_frame(self) -> pd.DataFrame:
        """The allocation of variation as a DataFrame: one row per component (factor or pair of
        factors) and one for the error, with ss, percent and dof."""
        rows = [
            {"component": c.name, "ss": c.ss, "percent": c.percent, "dof": c.dof} for c in self.components
        ]
        rows.append({"component": "error", "ss": self.ss_e, "percent": self.percent_error, "dof": self.dof_e})
        return pd.DataFrame(rows).set_index("component")

    def effects_frame(self) -> pd.DataFrame:
        """The main effects as a DataFrame: factor, level, effect, ci_low, ci_high, significant
        (missing intervals are NaN, ``significant`` then <NA>)."""
        df = pd.DataFrame(
            [
                {
                    "factor": e.factor,
                    "level": e.level,
                    "effect": e.effect,
                    "ci_low": math.nan if e.ci_low is None else e.ci_low,
                    "ci_high": math.nan if e.ci_high is None else e.ci_high,
                    "significant": e.significant,
                }
                for e in self.effects
            ]
        )
        df["significant"] = df["significant"].astype("boolean")
        return df

    def component(self, *factors: str) -> Component:
        for c in self.components:
            if c.factors == tuple(factors):
                return c
        raise KeyError(factors)

    def effect(self, factor: str, level: Any) -> Effect:
        for e in self.effects:
            if e.factor == factor and e.level == level:
                return e
        raise KeyError((factor, level))

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: everything but the interaction tables, which come as nested dicts.

        An undefined number (a percentage of a total variation of zero, a sum of squares past
        the range of floats) is None: JSON has no NaN, and strict readers refuse one."""
        return _json_safe(self._plain_dict())

    def _plain_dict(self) -> dict[str, Any]:
        return {
            "response": self.response,
            "factors": list(self.factors),
            "levels": {k: [_plain(v) for v in vs] for k, vs in self.levels.items()},
            "n": self.n,
            "replications": self.replications,
            "mean": self.mean,
            "ss_y": self.ss_y,
            "ss_0": self.ss_0,
            "ss_t": self.ss_t,
            "components": [{**asdict(c), "factors": list(c.factors)} for c in self.components],
            "ss_e": self.ss_e,
            "percent_error": self.percent_error,
            "dof_e": self.dof_e,
            "se": self.se,
            "confidence": self.confidence,
            "t_quantile": self.t_quantile,
            "effects": [
                {**asdict(e), "level": _plain(e.level), "significant": e.significant} for e in self.effects
            ],
            "interactions": {
                f"{a} x {b}": {
                    str(_plain(i)): {str(_plain(j)): float(v) for j, v in row.items()}
                    for i, row in table.iterrows()
                }
                for (a, b), table in self.interactions.items()
            },
        }


# A CSV of observations is read under the rules of every input file (a regular file, of a
# bounded size, UTF-8): far above a sweep's results (10^5 runs are about 60 MB), far below
# what would exhaust memory (pandas holds a few times the file).
MAX_CSV_BYTES = 64 * 1024 * 1024


def read_observations(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A CSV file of observations (one row each, a header row); UserError if it is not one (not
    a regular file, larger than MAX_CSV_BYTES, not UTF-8, not CSV)."""
    import io

    from tcplab.experiment.input_files import read_input

    text = read_input(path, "CSV", MAX_CSV_BYTES)
    try:
        df = pd.read_csv(io.StringIO(text))
    except pd.errors.EmptyDataError:
        raise UserError("the file is empty (expected a CSV header row naming the columns)") from None
    except pd.errors.ParserError as e:
        raise UserError(f"not a CSV file: {str(e).strip()}") from None
    except UnicodeDecodeError:
        raise UserError("not a text file (it is not valid UTF-8)") from None
    _refuse_repeated_names(text)
    return df


def _refuse_repeated_names(text: str) -> None:
    """Refuse a header that names a column twice. pandas renames the second 'x' to 'x.1', so
    ``--response x`` would analyse whichever came first, without a word (a seed column
    renamed by hand, say). Unnamed columns (empty names) are told apart by place, not name."""
    import io

    header = pd.read_csv(io.StringIO(text), header=None, nrows=1, dtype=str, keep_default_na=False)
    names = [str(n) for n in header.iloc[0]] if len(header) else []
    if names:
        names[0] = names[0].removeprefix("\ufeff")  # a byte-order mark, as pandas drops it
    places: dict[str, list[int]] = {}
    for place, name in enumerate(names, start=1):
        if name:
            places.setdefault(name, []).append(place)
    for name, found in places.items():
        if len(found) > 1:
            times = "twice" if len(found) == 2 else f"{len(found)} times"
            where = ", ".join(map(str, found[:-1])) + f" and {found[-1]}"
            raise UserError(
                f"column {name!r} appears {times} (columns {where}); rename all but one, so "
                "that it is clear which is meant"
            )


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _json_safe(data: Any) -> Any:
    """``data`` with every NaN or infinite float replaced by None (JSON's null), recursively."""
    if isinstance(data, dict):
        return {k: _json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_json_safe(v) for v in data]
    if isinstance(data, float) and not math.isfinite(data):
        return None
    return data


def _check(df: pd.DataFrame, response: str, factors: Sequence[str]) -> pd.Series:
    if not factors:
        raise UserError("--factors: name at least one factor column")
    if len(set(factors)) != len(factors):
        raise UserError(f"--factors: a factor is named twice ({', '.join(factors)})")
    missing = [c for c in [response, *factors] if c not in df.columns]
    if missing:
        names = ", ".join(repr(m) for m in missing)
        raise UserError(f"no column named {names} (columns: {', '.join(map(str, df.columns))})")
    if response in factors:
        raise UserError(f"--response {response!r} is also listed as a factor")
    y = pd.to_numeric(df[response], errors="coerce")
    bad = y.isna() & df[response].notna()
    if bad.any():
        row = int(np.argmax(bad.to_numpy())) + 1
        raise UserError(f"column {response!r}: not a number in row {row}: {df[response][bad].iloc[0]!r}")
    if y.isna().any():
        row = int(np.argmax(y.isna().to_numpy())) + 1
        raise UserError(f"column {response!r}: empty or NaN in row {row} (every response must be a number)")
    infinite = ~np.isfinite(y.to_numpy(dtype=float))
    if infinite.any():
        row = int(np.argmax(infinite)) + 1
        raise UserError(f"column {response!r}: not a finite number in row {row}: {float(y.iloc[row - 1])}")
    for f in factors:
        if df[f].isna().any():
            raise UserError(f"column {f!r}: empty in row {int(np.argmax(df[f].isna().to_numpy())) + 1}")
    if len(df) < 2:
        raise UserError("need at least two observations")
    return y.astype(float)


def _replications(df: pd.DataFrame, factors: Sequence[str], levels: dict[str, list[Any]]) -> int:
    sizes = df.groupby(list(factors), sort=False).size()
    cells = math.prod(len(v) for v in levels.values())
    if len(sizes) != cells:
        raise UserError(
            f"not a full factorial: {len(sizes)} of the {cells} combinations of "
            f"{' x '.join(f'{f} ({len(levels[f])} levels)' for f in factors)} are present"
        )
    if sizes.nunique() != 1:
        raise UserError(
            f"unbalanced design: combinations have between {sizes.min()} and {sizes.max()} observations; "
            "the analysis needs the same number for each"
        )
    return int(sizes.iloc[0])


def factorial_anova(
    df: pd.DataFrame,
    response: str,
    factors: str | Sequence[str],
    confidence: float = 0.90,
    interactions: bool = True,
) -> AnovaResult:
    """Jain's analysis of a full factorial (see the module docstring). ``factors`` lists the
    factor columns (a single name may be given as a string). Raises UserError for a missing
    column, a non-numeric response or a design that is not a balanced full factorial."""
    if not 0 < confidence < 1:
        raise UserError(f"--confidence: must lie in (0, 1), got {confidence}")
    factors = column_names(factors, "factors")
    y = _check(df, response, factors).to_numpy()
    levels = {f: list(pd.unique(df[f])) for f in factors}
    r = _replications(df, factors, levels)
    n = len(y)
    mean = float(y.mean())
    codes = {f: pd.Categorical(df[f], categories=levels[f]).codes for f in factors}

    main: dict[str, np.ndarray] = {}
    components: list[Component] = []
    # SST as squared deviations, which is SSY - SS0 without its cancellation: goodput of about
    # 1e9 b/s spread by tenths lost every digit to SSY - SS0, and the shares went to NaN.
    ss_t = float(np.sum((y - mean) ** 2))
    fitted = np.full(n, mean)
    for f in factors:
        k = len(levels[f])
        means = np.bincount(codes[f], weights=y, minlength=k) / np.bincount(codes[f], minlength=k)
        main[f] = means - mean
        fitted += main[f][codes[f]]
        components.append(Component(f, (f,), n / k * float(np.sum(main[f] ** 2)), 0.0, k - 1))

    pair_tables: dict[tuple[str, str], pd.DataFrame] = {}
    if interactions:
        for a, b in itertools.combinations(factors, 2):
            ka, kb = len(levels[a]), len(levels[b])
            cell = codes[a] * kb + codes[b]
            cell_mean = np.bincount(cell, weights=y, minlength=ka * kb) / np.bincount(cell, minlength=ka * kb)
            inter = cell_mean.reshape(ka, kb) - mean - main[a][:, None] - main[b][None, :]
            fitted += inter.reshape(-1)[cell]
            ss = n / (ka * kb) * float(np.sum(inter**2))
            components.append(Component(f"{a} x {b}", (a, b), ss, 0.0, (ka - 1) * (kb - 1)))
            pair_tables[(a, b)] = pd.DataFrame(inter, index=levels[a], columns=levels[b])

    components = [
        Component(c.name, c.factors, c.ss, 100 * c.ss / ss_t if ss_t else math.nan, c.dof) for c in components
    ]
    ss_e = float(np.sum((y - fitted) ** 2))
    dof_e = n - 1 - sum(c.dof for c in components)
    se = math.sqrt(ss_e / dof_e) if dof_e > 0 else None
    from scipy import stats  # here, after the input checks: it takes a while to import

    t = float(stats.t.ppf(1 - (1 - confidence) / 2, dof_e)) if dof_e > 0 else None
    effects = []
    for f in factors:
        s = se * math.sqrt((len(levels[f]) - 1) / n) if se is not None else None
        for level, e in zip(levels[f], main[f], strict=True):
            half = t * s if (t is not None and s is not None) else None
            low, high = (float(e) - half, float(e) + half) if half is not None else (None, None)
            effects.append(Effect(f, _plain(level), float(e), low, high))
    return AnovaResult(
        response=response,
        factors=tuple(factors),
        levels={f: [_plain(v) for v in vs] for f, vs in levels.items()},
        n=n,
        replications=r,
        mean=mean,
        ss_y=float(np.sum(y * y)),
        ss_0=n * mean * mean,
        ss_t=ss_t,
        components=components,
        ss_e=ss_e,
        dof_e=dof_e,
        se=se,
        confidence=confidence,
        t_quantile=t,
        effects=effects,
        interactions=pair_tables,
    )
