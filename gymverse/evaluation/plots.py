"""Figures for evaluation and audit reports (matplotlib, Agg backend, PNG files)."""

import math
from pathlib import Path
from typing import Mapping, Sequence

from gymverse.run.figures import pyplot, save_figure

Curve = Mapping[int, float]  # complexity level -> success rate


def short_name(env_id: str) -> str:
    return env_id.split(":", 1)[-1]


def plot_success_grid(curves: Mapping[str, Mapping[str, Curve]], path: Path, title: str) -> Path:
    """One panel per env, one line per series (agent or model): success against complexity."""
    plt = pyplot()
    names = list(curves)
    cols = min(5, max(1, len(names)))
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.0 * cols, 2.4 * rows), squeeze=False, sharey=True)
    series = list(dict.fromkeys(label for panel in curves.values() for label in panel))
    colors = {label: plt.get_cmap("tab10")(i % 10) for i, label in enumerate(series)}
    for ax, name in zip(axes.flat, names):
        for label, curve in curves[name].items():
            levels = sorted(curve)
            ax.plot(levels, [curve[level] for level in levels], marker=".", color=colors[label], label=label)
        ax.set_title(short_name(name), fontsize=9)
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("success")
    for ax in axes[-1, :]:
        ax.set_xlabel("complexity")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if len(series) > 1:
        fig.legend(handles, labels, loc="upper center", ncol=min(len(series), 6), fontsize=8, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(title, y=1.04 if len(series) > 1 else 1.0)
    fig.tight_layout()
    return save_figure(fig, path, tight_bbox=True)


def plot_heatmap(
    values: Sequence[Sequence[float]],
    rows: Sequence[str],
    cols: Sequence[str],
    path: Path,
    title: str,
    vmin: float = 0.0,
    vmax: float = 1.0,
    cmap: str = "viridis",
    label: str = "success",
) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(0.45 * len(cols) + 3.5, 0.3 * len(rows) + 1.5))
    image = ax.imshow(values, vmin=vmin, vmax=vmax, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, fontsize=8, rotation=90 if max(map(len, cols)) > 3 else 0)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    fig.tight_layout()
    return save_figure(fig, path, tight_bbox=True)


def plot_map(
    coords: Sequence[Sequence[float]], names: Sequence[str], groups: Sequence[str], path: Path, title: str
) -> Path:
    """A labelled 2-D scatter, one colour per group."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 5.5))
    for i, group in enumerate(sorted(set(groups))):
        points = [(x, y) for (x, y), g in zip(coords, groups) if g == group]
        ax.scatter(*zip(*points), label=group, color=plt.get_cmap("tab10")(i), s=40)
    for (x, y), name in zip(coords, names):
        ax.annotate(short_name(name), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("component 1")
    ax.set_ylabel("component 2")
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    return save_figure(fig, path, tight_bbox=True)


def plot_lines(
    curves: Mapping[str, Curve], path: Path, title: str, xlabel: str = "complexity", ylabel: str = "success"
) -> Path:
    """Several series on one axes (models compared)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for label, curve in curves.items():
        xs = sorted(curve)
        ax.plot(xs, [curve[x] for x in xs], marker="o", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    return save_figure(fig, path, tight_bbox=True)
