"""The audit report: ``audit.md`` and ``audit.json`` with figures, problem envs ranked first."""

from dataclasses import asdict
from pathlib import Path

from gymverse.env.visible import visible
from gymverse.evaluation.audit import AuditResult
from gymverse.evaluation.audit.agents import RANDOM
from gymverse.evaluation.audit.difficulty import VERDICTS
from gymverse.evaluation.plots import plot_heatmap, plot_map, plot_success_grid
from gymverse.evaluation.tables import markdown_table, write_json


def audit_to_dict(result: AuditResult) -> dict:
    envs = []
    for env in result.envs:
        envs.append(
            {
                "env_id": env.env_id,
                "domain": env.domain,
                "correctness": asdict(env.correctness) if env.correctness else None,
                "difficulty": asdict(env.difficulty) if env.difficulty else None,
            }
        )
    diversity = None
    if result.diversity:
        d = result.diversity
        diversity = {
            "env_ids": d.env_ids,
            "domains": d.domains,
            "similarity": d.similarity,
            "map_2d": d.coords,
            "within_domain_distance": d.within_domain,
            "across_domain_distance": d.across_domains,
            "domain_distance": d.domain_distance,
            "near_duplicates": d.near_duplicates,
            "features": d.features,
        }
    return {
        "config": asdict(result.config),
        "ranked_problem_envs": result.ranked(),
        "problems": [asdict(p) for p in result.problems],
        "envs": envs,
        "diversity": diversity,
    }


def write_figures(result: AuditResult, folder: Path) -> dict[str, Path]:
    figures = {}
    successes = {e.env_id: e.difficulty.success for e in result.envs if e.difficulty and e.difficulty.success}
    if successes:
        figures["difficulty_curves"] = plot_success_grid(
            successes,
            folder / "difficulty_curves.png",
            "Success of scripted agents against complexity",
        )
        agent = middle_epsilon(result)
        rows = [env_id for env_id, success in successes.items() if agent in success]
        levels = result.config.levels
        if rows:
            figures["difficulty_heatmap"] = plot_heatmap(
                [[successes[env_id][agent].get(level, float("nan")) for level in levels] for env_id in rows],
                rows,
                [str(level) for level in levels],
                folder / "difficulty_heatmap.png",
                f"{agent} success by complexity",
            )
    d = result.diversity
    if d and len(d.env_ids) > 1:
        figures["diversity_map"] = plot_map(
            d.coords,
            d.env_ids,
            d.domains,
            folder / "diversity_map.png",
            "Environments by embedding (2-D principal components)",
        )
        order = sorted(range(len(d.env_ids)), key=lambda i: (d.domains[i], d.env_ids[i]))
        names = [f"{d.env_ids[i]} ({d.domains[i]})" for i in order]
        figures["diversity_similarity"] = plot_heatmap(
            [[d.similarity[i, j] for j in order] for i in order],
            names,
            names,
            folder / "diversity_similarity.png",
            "Cosine similarity of environment embeddings",
            vmin=0.0,
            vmax=1.0,
            cmap="magma",
            label="cosine similarity",
        )
    return figures


def middle_epsilon(result: AuditResult) -> str:
    epsilons = sorted(result.config.epsilons)
    return f"epsilon-{epsilons[len(epsilons) // 2]:g}" if epsilons else RANDOM


def _range_text(curve: dict[int, float]) -> str:
    levels = sorted(curve)
    return f"{curve[levels[0]]:.2f} -> {curve[levels[-1]]:.2f}" if levels else "-"


def audit_markdown(result: AuditResult, figures: dict[str, Path], folder: Path) -> str:
    config = result.config
    lines = [
        "# Environment audit",
        "",
        f"{len(result.envs)} environments; complexity levels {config.levels}; "
        f"{config.episodes} episodes per agent and level ({config.solver_episodes} for the solver); "
        f"epsilons {config.epsilons}; env checker on levels 1..{config.checker_max_level} x "
        f"{config.checker_seeds} seeds.",
        "",
        "## Problem environments (worst first)",
        "",
    ]
    ranked = result.ranked()
    if ranked:
        lines.append(
            markdown_table(
                ["rank", "env", "score", "reasons"],
                [[i + 1, r["env_id"], r["score"], r["reasons"]] for i, r in enumerate(ranked)],
            )
        )
        lines += ["", "Score: 3 per error, 1 per warning.", ""]
        lines += [f"- **{p.env_id}** ({p.severity}, {p.section}) `{p.reason}`: {p.detail}" for p in result.problems]
    else:
        lines.append("No problems found.")
    lines += ["", "## Correctness", ""]
    rows = []
    for env in result.envs:
        c = env.correctness
        if c is None:
            continue
        failed = [x["name"] for x in c.checker if x["passed"] is False]
        solver = min(c.solver_success.values()) if c.solver_success else float("nan")
        random_pay = max(c.random_reward_outside_wins.values()) if c.random_reward_outside_wins else float("nan")
        rows.append(
            [
                env.env_id,
                "fail: " + ", ".join(failed) if failed else "pass",
                solver,
                random_pay,
                c.replays,
                len(c.problems),
            ]
        )
    if rows:
        lines.append(
            markdown_table(
                [
                    "env",
                    "env checker",
                    "solver success (worst level)",
                    "random reward outside wins (worst level)",
                    "replays checked",
                    "problems",
                ],
                rows,
            )
        )
    lines += ["", "## Difficulty", ""]
    agent = middle_epsilon(result)
    rows = []
    for env in result.envs:
        d = env.difficulty
        if d is None:
            continue
        judged = d.judged
        rows.append(
            [
                env.env_id,
                d.verdict,
                judged.spearman if judged else float("nan"),
                judged.slope if judged else float("nan"),
                _range_text(d.success.get(agent, {})),
                _range_text(d.success.get(RANDOM, {})),
            ]
        )
    if rows:
        verdicts = [row[1] for row in rows]
        lines.append(", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS if verdicts.count(v)) + ".")
        lines += [
            "",
            markdown_table(
                [
                    "env",
                    "verdict",
                    "Spearman (success vs level)",
                    "slope per level",
                    f"{agent} first -> last level",
                    "random first -> last level",
                ],
                rows,
            ),
        ]
    for key in ("difficulty_curves", "difficulty_heatmap"):
        if key in figures:
            lines += ["", f"![{key}]({figures[key].relative_to(folder)})"]
    diversity = result.diversity
    if diversity:
        lines += [
            "",
            "## Diversity",
            "",
            f"Mean cosine distance within a domain: {diversity.within_domain:.3f}; across domains: {diversity.across_domains:.3f}.",
            "",
        ]
        domains = sorted(diversity.domain_distance)
        lines.append(
            markdown_table(
                ["domain"] + domains, [[a] + [diversity.domain_distance[a][b] for b in domains] for a in domains]
            )
        )
        lines += [""]
        if diversity.near_duplicates:
            lines += [f"- near-duplicates: {a} and {b} (similarity {s:.3f})" for a, b, s in diversity.near_duplicates]
        else:
            lines.append(f"No pair of environments reaches cosine similarity {config.near_duplicate}.")
        for key in ("diversity_map", "diversity_similarity"):
            if key in figures:
                lines += ["", f"![{key}]({figures[key].relative_to(folder)})"]
        lines += ["", "### Structural features", ""]
        first, last = config.levels[0], config.levels[-1]
        lines.append(
            markdown_table(
                [
                    "env",
                    "commands",
                    "opening chars",
                    "feedback chars",
                    f"solver turns L{first}",
                    f"solver turns L{last}",
                ],
                [
                    [
                        env_id,
                        f["commands"],
                        round(f["opening_chars"]),
                        round(f["feedback_chars"]),
                        f["solver_turns"].get(first, float("nan")),
                        f["solver_turns"].get(last, float("nan")),
                    ]
                    for env_id, f in diversity.features.items()
                ],
            )
        )
    return "\n".join(lines) + "\n"


def write_audit_report(result: AuditResult, folder: Path) -> dict[str, Path]:
    """Write ``audit.md``, ``audit.json`` and the figures into ``folder``; return their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    figures = write_figures(result, folder)
    paths = dict(figures)
    paths["json"] = write_json(folder / "audit.json", audit_to_dict(result))
    paths["markdown"] = folder / "audit.md"
    paths["markdown"].write_text(visible(audit_markdown(result, figures, folder), lines=True))
    return paths
