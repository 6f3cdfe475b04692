"""Plots of arena results with matplotlib (an optional dependency: the ``[train]`` extra).

matplotlib is imported only when a plot is drawn, and through its object-oriented ``Figure``
API rather than ``pyplot``: no backend is switched and no global figure state is touched, so the
functions work the same in a script, a headless worker and a notebook (where a returned
``Figure`` displays itself). Save with ``fig.savefig(path)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from training.arena.duplicate import MatchResult
    from training.arena.round_robin import RoundRobinResult


def new_figure(**kwargs: Any) -> Any:
    """Return a new matplotlib ``Figure``, or explain which extra installs matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(
            "plotting arena results needs matplotlib; install it with "
            "`pip install gongzhu-rl[train]` (the [train] extra)"
        ) from e
    return Figure(**kwargs)


def plot_matches(results: Sequence[MatchResult]) -> Any:
    """Mean paired difference with its CI per match (left) and per-deal distributions (right)."""
    if not results:
        raise ValueError("plot_matches needs at least one match result")
    fig = new_figure(figsize=(11, 4.2), layout="constrained")
    ax_bar, ax_hist = fig.subplots(1, 2)
    labels = [f"{r.candidate}\nvs {r.opponent}" for r in results]
    means = np.array([r.stats.mean for r in results])
    err = np.array([[r.stats.mean - r.stats.ci_low for r in results],
                    [r.stats.ci_high - r.stats.mean for r in results]])
    x = np.arange(len(results))
    colors = ["tab:green" if r.stats.ci_low > 0 else "tab:red" if r.stats.ci_high < 0
              else "tab:gray" for r in results]
    ax_bar.bar(x, means, yerr=err, capsize=6, color=colors, alpha=0.8)
    ax_bar.axhline(0, color="black", lw=0.8)
    ax_bar.set_xticks(x, labels)
    conf = results[0].stats.confidence
    unit = results[0].unit
    ax_bar.set_ylabel(f"paired difference ({unit})")
    ax_bar.set_title(f"mean ± bootstrap {conf:.0%} CI ({results[0].format}, "
                     f"{results[0].scoring})")
    lo = min(float(np.percentile(r.diffs, 1)) for r in results)
    hi = max(float(np.percentile(r.diffs, 99)) for r in results)
    bins = np.linspace(lo, hi, 41) if hi > lo else 20
    for r in results:
        ax_hist.hist(r.diffs, bins=bins, histtype="step", lw=1.5,
                     label=f"vs {r.opponent} (n={r.stats.n})")
    ax_hist.axvline(0, color="black", lw=0.8)
    ax_hist.set_xlabel(f"per-deal paired difference ({unit}), 1st-99th percentile")
    ax_hist.set_ylabel("deals")
    ax_hist.set_title(f"distribution: {results[0].candidate}")
    ax_hist.legend(fontsize="small")
    return fig


def plot_ratings(rr: RoundRobinResult) -> Any:
    """Bradley–Terry ratings (left) and the matrix of pairwise mean differences (right)."""
    fig = new_figure(figsize=(11, 4.2), layout="constrained")
    ax_bar, ax_mat = fig.subplots(1, 2)
    ranking = rr.ratings.ranking()
    names = [n for n, _ in ranking]
    ax_bar.barh(np.arange(len(ranking)), [r for _, r in ranking], color="tab:blue", alpha=0.8)
    ax_bar.set_yticks(np.arange(len(ranking)), names)
    ax_bar.invert_yaxis()
    ax_bar.axvline(0, color="black", lw=0.8)
    ax_bar.set_xlabel(f"rating (Elo scale, {rr.ratings.anchor} = 0)")
    ax_bar.set_title("Bradley–Terry fit to per-deal outcomes")
    m = rr.mean_matrix()
    lim = float(np.nanmax(np.abs(m))) or 1.0
    im = ax_mat.imshow(m, cmap="RdBu", vmin=-lim, vmax=lim)
    k = len(rr.names)
    ax_mat.set_xticks(np.arange(k), [f"vs {n}" for n in rr.names], rotation=30, ha="right")
    ax_mat.set_yticks(np.arange(k), rr.names)
    for i in range(k):
        for j in range(k):
            if i != j and not np.isnan(m[i, j]):
                ax_mat.text(j, i, f"{m[i, j]:+.1f}", ha="center", va="center", fontsize=9,
                            color="white" if abs(m[i, j]) > 0.6 * lim else "black")
    ax_mat.set_title(f"mean paired difference, row vs column ({rr.unit})")
    fig.colorbar(im, ax=ax_mat)
    return fig
