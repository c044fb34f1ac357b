"""A sweep's report files: ``summary.json``, CSV tables, ``report.md`` and figures."""

import math
from pathlib import Path

from gymverse.env.visible import visible
from gymverse.evaluation.plots import plot_lines, plot_success_grid
from gymverse.evaluation.tables import markdown_table, write_csv, write_json

STAT_COLUMNS = ("success_rate", "mean_return", "mean_turns", "format_error_rate")


def pass_columns(summary: dict) -> list[str]:
    return [f"pass@{k}" for k in summary["config"]["ks"]]


def level_rows(summary: dict) -> list[dict]:
    return [
        {"env_id": env_id, "domain": env["domain"], "level": level, **stats}
        for env_id, env in summary["envs"].items()
        for level, stats in env["levels"].items()
    ]


def env_rows(summary: dict) -> list[dict]:
    return [
        {"env_id": env_id, **{k: v for k, v in env.items() if k != "levels"}} for env_id, env in summary["envs"].items()
    ]


def domain_rows(summary: dict) -> list[dict]:
    rows = [{"domain": domain, **stats} for domain, stats in summary["domains"].items()]
    return rows + [{"domain": "overall", **summary["overall"]}]


def write_sweep_report(summary: dict, folder: Path, title: str | None = None) -> dict[str, Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = summary["config"]
    title = title or f"Evaluation of {config['policy']}"
    paths = {
        "json": write_json(folder / "summary.json", summary),
        "levels_csv": write_csv(folder / "levels.csv", level_rows(summary)),
        "envs_csv": write_csv(folder / "envs.csv", env_rows(summary)),
        "domains_csv": write_csv(folder / "domains.csv", domain_rows(summary)),
        "success_vs_complexity": plot_success_grid(
            {
                env_id: {config["policy"]: {int(lv): s["success_rate"] for lv, s in env["levels"].items()}}
                for env_id, env in summary["envs"].items()
            },
            folder / "success_vs_complexity.png",
            f"{title}: success against complexity",
        ),
        "success_by_domain": plot_lines(
            domain_curves(summary),
            folder / "success_by_domain.png",
            f"{title}: success by domain",
        ),
    }
    paths["markdown"] = folder / "report.md"
    paths["markdown"].write_text(visible(sweep_markdown(summary, title), lines=True))
    return paths


def domain_curves(summary: dict) -> dict[str, dict[int, float]]:
    """Per domain (and overall): success at each level, pooled over the domain's envs."""
    totals: dict[str, dict[int, list[float]]] = {}
    for env in summary["envs"].values():
        for level, stats in env["levels"].items():
            for name in (env["domain"], "overall"):
                pair = totals.setdefault(name, {}).setdefault(int(level), [0.0, 0.0])
                pair[0] += stats["success_rate"] * stats["attempts"]
                pair[1] += stats["attempts"]
    return {name: {lv: s / n for lv, (s, n) in sorted(curve.items())} for name, curve in totals.items()}


def sweep_markdown(summary: dict, title: str) -> str:
    config = summary["config"]
    passes = pass_columns(summary)
    columns = ["success_rate", *passes, "mean_return", "mean_turns", "format_error_rate"]
    lines = [
        f"# {title}",
        "",
        f"Policy `{config['policy']}`; levels {config['levels']}; {config['instances']} instances per level, "
        f"{config['attempts']} attempts each; template `{config['template']}`, wrappers `{config['wrappers']}`.",
        "",
        "## Overall and per domain",
        "",
        markdown_table(
            ["domain", *columns], [[r["domain"], *(r.get(c, math.nan) for c in columns)] for r in domain_rows(summary)]
        ),
        "",
        "## Per environment",
        "",
        markdown_table(
            ["env", "domain", *columns, "slope", "Spearman"],
            [
                [r["env_id"], r["domain"], *(r.get(c, math.nan) for c in columns), r["slope"], r["spearman"]]
                for r in env_rows(summary)
            ],
        ),
        "",
        "## Per level",
        "",
        markdown_table(
            ["env", "level", *columns, "band"],
            [[r["env_id"], r["level"], *(r.get(c, math.nan) for c in columns), r["band"]] for r in level_rows(summary)],
        ),
        "",
        "![success against complexity](success_vs_complexity.png)",
        "",
        "![success by domain](success_by_domain.png)",
        "",
    ]
    return "\n".join(lines)
