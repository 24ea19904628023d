"""The README's quick start is executed as written, and its set-up commands are the real ones."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_quick_start_runs(capsys):
    block = re.search(r"## Quick start \(Python\)\s+```python\n(.*?)```", README, re.S)
    assert block, "no python quick start block in README"
    namespace: dict = {}
    exec(compile(block.group(1), "README quick start", "exec"), namespace)
    out = capsys.readouterr().out
    # the gpt4 grid estimate among decided verdicts (its synthetic tables hold gpt4's 15% ties):
    # 0.08, near the S_com closed form's 0.093 (0.1xx with tie-free tables)
    assert "Δ_S grid fit for gpt4: eps = 0.08" in out
    cc = namespace["cc"]
    assert {"eps_plus", "eps_minus", "eps"} <= set(cc.table["quantity"])
    # the table's basis is the cross-check's: gpt4's ε₊ from the pairs decided in both orders
    from bayes_pairwise.crosscheck import METHOD_MOMENTS_DECIDED

    table = namespace["table"]
    assert table.loc["gpt4", "basis"] == "pairs decided in both orders"
    row = cc.table[(cc.table.method == METHOD_MOMENTS_DECIDED) & (cc.table.quantity == "eps_plus")]
    assert table.loc["gpt4", "eps_plus_decided"] == row.estimate.iloc[0]


def test_readme_commands_match_ci():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest\n" in README and "\npython -m pytest\n" in ci
    assert 'pip install -e ".[dev]"' in README and 'pip install -q -e ".[dev]"' in ci
    assert "bayes-pairwise report prd_vicuna80 --out report.html" in README


def test_readme_shell_commands_parse_and_read_only_files_made_before():
    """Every ``bayes-pairwise`` line of the README parses, and reads a bundled data set or a file
    an earlier README line writes (the README once proposed lists from a file it never made)."""
    import shlex

    from bayes_pairwise import datasets
    from bayes_pairwise.cli import build_parser

    parser = build_parser()
    bundled = set(datasets.list_datasets()["name"])
    made: set[str] = set()
    lines = [
        line.split("   #")[0].split(" > ")[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", README, re.S)
        for line in block.splitlines()
    ]
    commands = [line[line.index("bayes-pairwise") :] for line in lines if "bayes-pairwise" in line]
    assert len(commands) >= 8
    for command in commands:
        argv = shlex.split(command)[1:]
        args = parser.parse_args(argv)
        data = getattr(args, "data", None)
        if data is not None:
            assert data in bundled or data in made, f"{command!r} reads {data!r}, never made"
        if getattr(args, "out", None):
            made.add(args.out)
