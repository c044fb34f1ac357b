"""Figures for evaluation and audit reports (matplotlib, Agg backend, PNG files)."""

import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gymverse.run.figures import pyplot, save_figure

Curve = Mapping[int, float]  # complexity level -> success rate


def short_name(env_id: str) -> str:
    return env_id.split(":", 1)[-1]


MAX_PANELS = 30  # beyond this many envs a panel each is unreadable (and slow): one panel per series instead
MAX_INCHES = 24.0  # a heatmap's largest side; its labels shrink to fit, and are left out where they cannot


def plot_success_grid(curves: Mapping[str, Mapping[str, Curve]], path: Path, title: str) -> Path:
    """One panel per env, one line per series (agent or model): success against complexity. Past
    ``MAX_PANELS`` envs, one panel per series instead, every env a faint line under their mean."""
    if len(curves) > MAX_PANELS:
        return _plot_success_overlay(curves, path, title)
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


def _plot_success_overlay(curves: Mapping[str, Mapping[str, Curve]], path: Path, title: str) -> Path:
    plt = pyplot()
    series = list(dict.fromkeys(label for panel in curves.values() for label in panel))
    fig, axes = plt.subplots(1, len(series), figsize=(4.5 * len(series), 3.5), squeeze=False, sharey=True)
    for ax, label in zip(axes.flat, series):
        by_level: dict[int, list[float]] = {}
        for panel in curves.values():
            curve = panel.get(label, {})
            levels = sorted(curve)
            ax.plot(levels, [curve[level] for level in levels], color="tab:blue", alpha=0.12, linewidth=0.8)
            for level in levels:
                by_level.setdefault(level, []).append(curve[level])
        levels = sorted(by_level)
        means = [sum(by_level[level]) / len(by_level[level]) for level in levels]
        ax.plot(levels, means, color="black", marker="o", linewidth=2, label="mean")
        ax.set_title(f"{label} ({len(curves)} envs)", fontsize=9)
        ax.set_xlabel("complexity")
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0, 0].set_ylabel("success")
    fig.suptitle(title)
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
    width, height = min(0.45 * len(cols) + 3.5, MAX_INCHES), min(0.3 * len(rows) + 1.5, MAX_INCHES)
    fig, ax = plt.subplots(figsize=(width, height))
    image = ax.imshow(values, vmin=vmin, vmax=vmax, cmap=cmap, aspect="auto")
    for axis, names, inches in ((ax.xaxis, cols, width - 3.5), (ax.yaxis, rows, height - 1.5)):
        size = min(8.0, 0.8 * 72 * inches / len(names))  # points: each label within its row or column
        if size < 4:
            axis.set_ticks([])
        else:
            axis.set_ticks(range(len(names)), names, fontsize=size)
    if max(map(len, cols)) > 3:
        pyplot().setp(ax.get_xticklabels(), rotation=90)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    fig.tight_layout()
    return save_figure(fig, path, tight_bbox=True)


def plot_map(
    coords: Sequence[Sequence[float]] | np.ndarray, names: Sequence[str], groups: Sequence[str], path: Path, title: str
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
