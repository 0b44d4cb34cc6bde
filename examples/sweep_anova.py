"""Which matters more for goodput, the TCP variant or the loss rate? A sweep and Jain's ANOVA.

Runs the example sweep shipped with tcplab (``sweeps/loss_variants``: Reno, NewReno and SACK on a
lossy 10 Mb/s link at three loss rates, 5 replications), then the factorial analysis of Jain
(1991): the share of the variation each factor explains, and each level's effect with its 90%
interval.

    python sweep_anova.py [--quick] [--out DIR]
"""

import argparse
import dataclasses
from pathlib import Path

import tcplab

parser = argparse.ArgumentParser(description="A sweep and its factorial analysis.")
parser.add_argument("--quick", action="store_true", help="2 replications instead of 5 (for tests)")
parser.add_argument("--out", type=Path, default=Path("out/gallery"), help="folder for the store and figure")
args = parser.parse_args()
args.out.mkdir(parents=True, exist_ok=True)

spec = tcplab.load_spec("sweeps/loss_variants")  # a packaged example spec; a file path works too
if args.quick:
    spec = dataclasses.replace(spec, replications=2)
result = tcplab.sweep(spec, store=args.out / "loss_variants.sqlite")
print(result.summary())
df = result.df

aov = tcplab.factorial_anova(df, "total_goodput_bps", ["variant", "loss"])
variation = aov.to_frame()  # one row per component: ss, percent of the variation, dof
print(variation.to_string())
print(aov.effects_frame().to_string(index=False))

ax = tcplab.plot.response(df, "loss", "total_goodput_bps", by="variant")
ax.set_xlabel("random loss rate of data packets")
shares = ", ".join(f"{name} {percent:.0f}%" for name, percent in variation["percent"].items())
ax.set_title(f"Allocation of variation: {shares}", fontsize="small")
ax.figure.savefig(args.out / "sweep_anova.png", dpi=80)
print(f"figure: {args.out / 'sweep_anova.png'}")
