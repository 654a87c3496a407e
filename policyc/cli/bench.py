"""`policyc bench`: the AgentLTL benchmark - instances, policies, runs and the paper's tables."""

from __future__ import annotations

import json
from pathlib import Path

import click

from policyc.cli import EXIT_INPUT, EXIT_OK
from policyc.cli.common import write_file, write_problem
from policyc.terminal import printable

_MODE = click.Choice(["production", "simplified"])
_FORMAT = click.Choice(["text", "json"])


def _fail(message: str) -> None:
    click.echo(f"policyc: {message}", err=True)
    raise click.exceptions.Exit(EXIT_INPUT)


def _instance_options(fn):
    for option in reversed([
        click.option("--template", "-t", required=True, help="a template name (see `policyc bench list`)"),
        click.option("--difficulty", "-d", type=click.IntRange(1, 5), default=1, show_default=True,
                     help="D1-D5 (production mode; simplified instances derive it from their length)"),
        click.option("--seed", "-s", type=click.IntRange(0), default=42, show_default=True),
        click.option("--mode", type=_MODE, default="production", show_default=True),
        click.option("--aliases", is_flag=True, help="domain aliases for the tool names (diverse-tool split)"),
        click.option("--variant", default="", help="simplified a/c templates: the seed transform, tool_a or tool_c"),
        click.option("--augmentation", type=click.Choice(["none", "prefix", "suffix", "both"]), default="none",
                     show_default=True, help="simplified mode: an extra tool_a call before and/or after"),
    ]):
        fn = option(fn)
    return fn


def _generate(template, difficulty, seed, mode, aliases, variant, augmentation):
    from policyc.bench import generate_instance

    try:
        return generate_instance(template, difficulty, seed, mode=mode, aliases=aliases, variant=variant,
                                 augmentation=augmentation)
    except ValueError as exc:
        _fail(str(exc))


@click.group("bench")
def command() -> None:
    """The AgentLTL benchmark: generate instances and their policies, score agent runs.

    \b
    Exit status: 0 ok, 2 bad options or input (an unknown template, a malformed run record).
    """


@command.command("list")
@click.option("--mode", type=_MODE, default=None, help="only this mode's templates")
@click.option("--format", "fmt", type=_FORMAT, default="text", show_default=True)
def list_templates(mode: str | None, fmt: str) -> None:
    """List the templates, their tools and how difficulty scales them."""
    from policyc.bench import PRODUCTION, SIMPLIFIED

    rows = [t for t in PRODUCTION + SIMPLIFIED if mode in (None, t.mode)]
    if fmt == "json":
        click.echo(json.dumps([{"name": t.name, "mode": t.mode, "family": t.family, "tools": list(t.tools),
                                "scaling": t.scaling or None, "levels": list(t.levels) or None,
                                "variants": [v for v in t.variants if v], "held_out": t.held_out} for t in rows],
                              indent=2))
        return
    for t in rows:
        if t.mode == "production":
            levels = " ".join(f"D{k}={v if not isinstance(v, tuple) else ','.join(map(str, v))}"
                              for k, v in enumerate(t.levels, 1))
            extra = f"{t.scaling}: {levels}"
        else:
            extra = ("held out" if t.held_out else "training") + (
                f", transform {' or '.join(v for v in t.variants)}" if len(t.variants) > 1 else "")
        click.echo(f"{t.mode:<10}  {t.name:<26}  {t.family:<12}  {', '.join(t.tools):<38}  {extra}")


@command.command("generate")
@_instance_options
@click.option("--output", "-o", type=click.Path(file_okay=False), default=None,
              help="folder to write into (default: a folder named after the instance)")
def generate(template, difficulty, seed, mode, aliases, variant, augmentation, output) -> None:
    """Write an instance: prompt, gold trace, expected answer and its policy."""
    from policyc.bench.compliance import base_file_name
    from policyc.bench.synthesize import aliased_policy_text, policy_name, policy_text, synthesize_rules

    instance = _generate(template, difficulty, seed, mode, aliases, variant, augmentation)
    folder = Path(output or policy_name(instance) + ("_aliased" if aliases else ""))
    rules = synthesize_rules(instance)
    record = {"instance": instance.key, "answer": instance.expected_answer, "num_tool_calls": len(instance.calls),
              "tool_calls": instance.gold_records()}
    files = {
        "prompt.txt": instance.prompt + "\n",
        "gold_trace.json": json.dumps(record, indent=2) + "\n",
        "instance.json": json.dumps({
            **instance.key, "prompt": instance.prompt, "gold_trace": instance.gold_records(),
            "expected_answer": instance.expected_answer, "num_tool_calls_expected": len(instance.calls),
            "constraints": [{"name": r.name, "layer": r.layer, "weight": r.weight, "formula": r.formula}
                            for r in rules],
            "capped": instance.capped or None}, indent=2) + "\n",
    }
    if aliases:
        files[base_file_name(instance)] = policy_text(instance)
        files["policy.altl"] = aliased_policy_text(instance, base_file_name(instance))
    else:
        files["policy.altl"] = policy_text(instance)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            write_file(str(folder.joinpath(name)), text.encode("utf-8"))
    except OSError as exc:
        _fail(f"cannot write `{printable(str(folder))}`: {write_problem(exc)}")
    click.echo(f"{folder}: {instance.template} ({instance.mode}), difficulty {instance.difficulty}, seed {seed}: "
               f"{len(instance.calls)} gold calls, answer {instance.expected_answer}, {len(rules)} rules")
    for name in files:
        click.echo(f"  {folder / name}")


@command.command("scripted")
@_instance_options
@click.option("--fault", "faults", multiple=True, help="inject a fault: drop, swap, wrong_branch, "
              "change_argument, repeat, wrong_answer (name@k targets call k); repeatable")
@click.option("--setting", default="baseline", show_default=True, help="the enforcement setting to record")
@click.option("--model", default="scripted", show_default=True, help="the model name to record")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="append the run record to this JSONL file (default: print it)")
def scripted(template, difficulty, seed, mode, aliases, variant, augmentation, faults, setting, model,
             output) -> None:
    """Run the scripted agent: the gold procedure, with the faults injected."""
    from policyc.bench import scripted_run
    from policyc.bench.faults import FaultNotApplicable

    instance = _generate(template, difficulty, seed, mode, aliases, variant, augmentation)
    try:
        run = scripted_run(instance, faults, model=model, setting=setting)
    except (FaultNotApplicable, ValueError) as exc:
        _fail(str(exc))
    line = json.dumps(run)
    if output is None:
        click.echo(line)
        return
    try:
        write_file(output, (line + "\n").encode("utf-8"), append=True)
    except OSError as exc:
        _fail(f"cannot write `{printable(output)}`: {write_problem(exc)}")


@command.command("score")
@click.argument("runs", nargs=-1, required=True)
@click.option("--format", "fmt", type=_FORMAT, default="text", show_default=True)
def score(runs: tuple[str, ...], fmt: str) -> None:
    """Score agent RUNS (JSON/JSONL run records) and print the paper's tables.

    \b
    Tables: compliance and accuracy per template (table 15), per-layer pass rates (table 4),
    and, when the runs come from several enforcement settings, compliance per setting (table 1).
    Malformed records are reported on standard error and left out; the exit status is then 2.
    """
    from policyc.bench.report import bench_tables
    from policyc.bench.runs import read_runs, score_run

    read, errors = read_runs(runs)
    scored = [score_run(r) for r in read]
    tables = bench_tables(scored) if scored else []
    if fmt == "json":
        click.echo(json.dumps({"runs": len(scored), "tables": [t.to_json() for t in tables],
                               "errors": [e.to_json() for e in errors]}, indent=2))
    else:
        click.echo("\n\n".join(t.render() for t in tables))
    for error in errors:
        click.echo(f"policyc: {error}", err=True)
    if not scored:
        _fail("no run records found")
    raise click.exceptions.Exit(EXIT_INPUT if errors else EXIT_OK)


@command.command("stats")
@click.option("--seed", "seeds", type=click.IntRange(0), multiple=True, help="seeds (default: the paper's 42 and 123)")
@click.option("--format", "fmt", type=_FORMAT, default="text", show_default=True)
def stats(seeds: tuple[int, ...], fmt: str) -> None:
    """Gold trace lengths, rule counts and the weight per layer over the benchmark grid."""
    from policyc.bench.stats import PAPER_SEEDS, benchmark_grid, weight_statistics

    result = weight_statistics(benchmark_grid(seeds or PAPER_SEEDS))
    rows = {**result.templates, "all": result.overall}
    if fmt == "json":
        click.echo(json.dumps({name: {"instances": t.instances, "mean_calls": t.calls / t.instances,
                                      "mean_rules": t.rules / t.instances, "weight": t.weight,
                                      "structural_share": t.structural_share} for name, t in rows.items()},
                              indent=2))
        return
    click.echo(f"{'template':<26}{'instances':>10}{'calls':>8}{'rules':>8}{'weight':>9}"
               + "".join(f"{layer:>7}" for layer in result.layer_shares()) + f"{'L3+L4+L5':>10}")
    for name, t in rows.items():
        shares = "".join(f"{w / t.total:>7.1%}" for w in t.weight.values())
        click.echo(f"{name:<26}{t.instances:>10}{t.calls / t.instances:>8.1f}{t.rules / t.instances:>8.1f}"
                   f"{t.total / t.instances:>9.1f}{shares}{t.structural_share:>10.1%}")


@command.command("trainset")
@click.option("--size", type=click.IntRange(1), default=300, show_default=True)
@click.option("--cores", type=click.IntRange(1, 10_000), default=30, show_default=True, help="core seeds per pattern variant")
@click.option("--min", "minimum", type=click.IntRange(0), default=8, show_default=True, help="examples per pattern, at least")
@click.option("--max", "maximum", type=click.IntRange(1), default=24, show_default=True, help="examples per pattern, at most")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the sampler's shuffles")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, help="JSONL file (default: print)")
def trainset(size: int, cores: int, minimum: int, maximum: int, seed: int, output: str | None) -> None:
    """The balanced GRPO training set of appendix D.3, as JSONL rows (prompt, instance)."""
    from policyc.bench.sampler import sample_training_set
    from policyc.reward import dataset_row

    try:
        entries = sample_training_set(size, cores=cores, minimum=minimum, maximum=maximum, seed=seed)
    except ValueError as exc:
        _fail(str(exc))
    lines = [json.dumps(dataset_row(e.instance())) for e in entries]
    if output is None:
        click.echo("\n".join(lines))
        return
    try:
        write_file(output, ("\n".join(lines) + "\n").encode("utf-8"))
    except OSError as exc:
        _fail(f"cannot write `{printable(output)}`: {write_problem(exc)}")
    click.echo(f"{output}: {len(lines)} training rows")
