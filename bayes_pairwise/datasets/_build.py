"""Rebuild the bundled data files from a copy of the project's ``shared/data`` folder.

This is a maintainer tool, not part of the public API. It writes gzip-compressed copies
(``mtime=0``, so rebuilding gives identical bytes) of the upstream files (those upstream
compressed already, byte for byte), the one derived
answer-text file of ``prd_vicuna80``, the upstream licences, and ``MANIFEST.json`` with the
SHA-256 of every bundled file's *uncompressed* content and of the files it was made from.

Run it as::

    python -m bayes_pairwise.datasets._build /path/to/shared/data
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"

#: (bundled path, path under shared/data) for files copied verbatim (then gzip-compressed).
VERBATIM: tuple[tuple[str, str], ...] = (
    ("prd_vicuna80/llm_pairwise_long.csv.gz", "prd_vicuna80/derived/llm_pairwise_long.csv"),
    ("prd_vicuna80/human_pairwise_long.csv.gz", "prd_vicuna80/derived/human_pairwise_long.csv"),
    (
        "judging_the_judges/repetition_judgments.csv.gz",
        "judging_the_judges/repetition_judgments.csv",
    ),
    (
        "chatbot_arena/chatbot_arena_human_and_llm_judges.csv.gz",
        "prediction_powered_ranking/chatbot_arena_human_and_llm_judges.csv",
    ),
    ("llmfao/llmfao.csv.gz", "evalica/llmfao.csv"),
    ("llmfao/llmfao-golden.csv.gz", "evalica/llmfao-golden.csv"),
)

#: (bundled path, path under shared/data) for upstream files that are gzip-compressed already:
#: copied byte for byte (the manifest's digest is of the uncompressed content, as for the rest).
VERBATIM_GZIP: tuple[tuple[str, str], ...] = (
    ("qlora_oa_gpt4/qlora_oa_gpt4_long.csv.gz", "qlora_oa_gpt4/qlora_oa_gpt4_long.csv.gz"),
)

#: (bundled licence path, upstream licence under shared/data), copied byte for byte.
LICENCES: tuple[tuple[str, str], ...] = (
    ("prd_vicuna80/LICENSE", "prd_vicuna80/raw/LICENSE"),
    ("judging_the_judges/LICENSE", "judging_the_judges/LICENSE.upstream"),
    ("chatbot_arena/LICENSE", "prediction_powered_ranking/LICENSE.upstream"),
    ("llmfao/LICENSE", "evalica/LICENSE.upstream"),
    ("qlora_oa_gpt4/LICENSE", "qlora_oa_gpt4/LICENSE"),
)

PRD_MODELS: tuple[str, ...] = ("bard", "claude", "gpt35", "gpt4", "vicuna-13b")
PRD_TEXTS = "prd_vicuna80/texts.jsonl.gz"
PRD_GENERATIONS = "prd_vicuna80/raw/data/vicuna80/generations/answer_{model}.jsonl"
PRD_QUESTIONS = "prd_vicuna80/raw/data/vicuna80/prompts/vicuna_questions.jsonl"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_gzip(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    # mtime=0 and no file name in the header: the same input gives the same bytes.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        gz.write(data)
    path.write_bytes(buffer.getvalue())


def _prd_texts(shared: Path) -> tuple[bytes, dict[str, str]]:
    """One JSON line per (question, answer model): the 5 x 80 answers with their question."""
    questions = {}
    raw = (shared / PRD_QUESTIONS).read_bytes()
    sources = {PRD_QUESTIONS: _sha256(raw)}
    for line in raw.decode("utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            questions[int(q["question_id"])] = q
    rows = []
    for model in PRD_MODELS:
        rel = PRD_GENERATIONS.format(model=model)
        raw = (shared / rel).read_bytes()
        sources[rel] = _sha256(raw)
        for line in raw.decode("utf-8").splitlines():
            if not line.strip():
                continue
            a = json.loads(line)
            qid = int(a["question_id"])
            rows.append(
                {
                    "question_id": qid,
                    "category": questions[qid]["category"],
                    "question": questions[qid]["text"],
                    "item": model,
                    "model_id": a["model_id"],
                    "answer_id": a["answer_id"],
                    "text": a["text"],
                }
            )
    rows.sort(key=lambda r: (r["question_id"], PRD_MODELS.index(r["item"])))
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return text.encode("utf-8"), sources


def _entry(
    raw: bytes, sources: dict[str, str], *, verbatim: bool = True, compression: str | None = "gzip"
) -> dict:
    """A manifest entry: the digest and size of the uncompressed content, and its origin."""
    return {
        "sha256": _sha256(raw),
        "bytes": len(raw),
        "verbatim": verbatim,
        "compression": compression,
        "sources": sources,
    }


def build(shared: Path, out: Path = DATA_DIR) -> dict[str, dict]:
    """Write every bundled file under ``out`` and return the manifest."""
    manifest: dict[str, dict] = {}
    for bundled, original in VERBATIM:
        raw = (shared / original).read_bytes()
        _write_gzip(out / bundled, raw)
        manifest[bundled] = _entry(raw, {original: _sha256(raw)})
    for bundled, original in VERBATIM_GZIP:
        packed = (shared / original).read_bytes()
        (out / bundled).parent.mkdir(parents=True, exist_ok=True)
        (out / bundled).write_bytes(packed)
        manifest[bundled] = _entry(gzip.decompress(packed), {original: _sha256(packed)})
    raw, sources = _prd_texts(shared)
    _write_gzip(out / PRD_TEXTS, raw)
    manifest[PRD_TEXTS] = _entry(raw, sources, verbatim=False)
    for bundled, original in LICENCES:
        (out / bundled).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared / original, out / bundled)
        raw = (out / bundled).read_bytes()
        manifest[bundled] = _entry(raw, {original: _sha256(raw)}, compression=None)
    manifest = dict(sorted(manifest.items()))
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


if __name__ == "__main__":  # pragma: no cover - maintainer tool
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bayes_pairwise.datasets._build /path/to/shared/data")
    for name, entry in build(Path(sys.argv[1])).items():
        print(f"{name}: {entry['bytes']:,} bytes uncompressed")
