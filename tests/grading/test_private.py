"""Private codes: a batch made with the teacher's secret; its keys rebuild with that secret alone."""

from __future__ import annotations

import json
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.core.problem import same_numbers
from generator.draw.codes import CodeError
from generator.draw.choose import kind_options
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.private import MAX_TAG, SecretError, new_secret, private_coder, read_private
from generator.draw.rebuild import rebuild
from generator.draw.search import draw
from generator.draw.sheetcodes import decode_code


def test_a_private_batch_rebuilds_with_its_secret_and_only_with_it(run, tmp_path):
    secret_file, out = tmp_path / "teacher.secret", tmp_path / "batch"
    r = run("generate", "--count", "3", "--seed", "9", "--secret-file", str(secret_file), "--out", str(out))
    assert r.code == 0 and "made a new secret file" in r.err
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600  # readable by its owner alone
    manifest = json.loads((out / "manifest.json").read_text())
    sheet = manifest["sheets"][1]
    code = sheet["code"]
    # A student with the printed code and the public tool: no key.
    r = run("key", code, "--out", str(tmp_path / "k1"))
    assert r.code == 1 and "needs the teacher's secret file" in r.err and not (tmp_path / "k1").exists()
    assert run("answers", code).code == 1
    # The teacher, with the secret file: the very sheet that was printed.
    r = run("key", code, "--secret-file", str(secret_file), "--out", str(tmp_path / "k2"))
    assert r.code == 0, r.err
    rebuilt = json.loads(next((tmp_path / "k2").glob("*-manifest.json")).read_text())["sheets"][0]
    assert rebuilt["code"] == code and rebuilt["problem"] == sheet["problem"]
    # Another secret file is said to be the wrong one, never silently used.
    other = tmp_path / "other.secret"
    other.write_text(new_secret().key.hex())
    r = run("key", code, "--secret-file", str(other), "--out", str(tmp_path / "k3"))
    assert r.code == 1 and "not made with this secret file" in r.err
    # The same secret and seed make the same batch again; the secret file is never overwritten.
    before = secret_file.read_bytes()
    assert (
        run(
            "generate",
            "--count",
            "3",
            "--seed",
            "9",
            "--secret-file",
            str(secret_file),
            "--out",
            str(tmp_path / "again"),
        ).code
        == 0
    )
    assert secret_file.read_bytes() == before
    assert json.loads((tmp_path / "again" / "manifest.json").read_text())["sheets"] == manifest["sheets"]


def test_the_code_alone_draws_other_numbers(tmp_path):
    secret = new_secret()
    options = DrawOptions(preset="easy")
    code = private_coder(options, 42, secret)(3)
    problem = rebuild(code, secret=secret)
    inner = read_private(code).inner  # what anyone reads off the printed code: the shape and the tag
    public = draw(inner.options, inner.seed, count=1, start=inner.index)[0]
    assert inner.options == decode_code(public.code).options and not same_numbers(public, problem)
    assert problem.code == code


def test_grading_a_private_batch(run, tmp_path):
    secret_file, out = tmp_path / "s", tmp_path / "b"
    assert run("generate", "--count", "2", "--secret-file", str(secret_file), "--out", str(out)).code == 0
    skeletons = tmp_path / "answers.json"
    assert run("answers", "--manifest", str(out / "manifest.json"), "--all", "--out", str(skeletons)).code == 0
    manifest = str(out / "manifest.json")
    # With the manifest, grading needs no secret; with the secret, every sheet is also drawn again.
    assert run("grade", str(skeletons), "--manifest", manifest).code == 0
    assert run("grade", str(skeletons), "--manifest", manifest, "--secret-file", str(secret_file)).code == 0
    # Without a manifest, the codes alone need the secret.
    r = run("grade", str(skeletons))
    assert r.code == 1 and "needs the teacher's secret file" in r.err
    assert run("grade", str(skeletons), "--secret-file", str(secret_file)).code == 0
    # A private manifest with its sheets swapped is caught when the secret is given.
    value = json.loads((out / "manifest.json").read_text())
    value["sheets"][0]["problem"], value["sheets"][1]["problem"] = (
        value["sheets"][1]["problem"],
        value["sheets"][0]["problem"],
    )
    swapped = tmp_path / "swapped.json"
    swapped.write_text(json.dumps(value))
    r = run("grade", str(skeletons), "--manifest", str(swapped), "--secret-file", str(secret_file))
    assert r.code == 1 and "is not the one its code draws" in r.err


def test_private_settings_that_cannot_be(run, tmp_path):
    secret_file = tmp_path / "s"
    r = run(
        "generate",
        "--problem",
        "generator/examples/classic.json",
        "--secret-file",
        str(secret_file),
        "--out",
        str(tmp_path / "o"),
    )
    assert r.code == 2 and "--problem takes no --secret-file" in r.err and not secret_file.exists()
    r = run("generate", "--seed", str(MAX_TAG + 1), "--secret-file", str(secret_file), "--out", str(tmp_path / "o"))
    assert r.code == 1 and "private batch's seed" in r.err and not (tmp_path / "o").exists()
    bad = tmp_path / "bad.secret"
    bad.write_text("not hex")
    r = run("key", "72U2-X", "--secret-file", str(bad), "--out", str(tmp_path / "o"))
    assert r.code == 1 and "not a secret file" in r.err
    r = run("generate", "--secret-file", str(tmp_path / "missing" / "s"), "--out", str(tmp_path / "o"))
    assert r.code == 1 and "cannot make the secret file" in r.err


@settings(max_examples=60, deadline=None)
@given(tag=st.integers(0, MAX_TAG), index=st.integers(0, 999), kind=st.sampled_from(["attention", "ffn"]))
def test_private_codes_read_back_and_a_typo_is_caught(tag, index, kind):
    secret = new_secret()
    options = DrawOptions() if kind == "attention" else kind_options("ffn")
    code = private_coder(options, tag, secret)(index)
    parts = read_private(code)
    assert (parts.inner.options, parts.inner.seed, parts.inner.index, parts.code) == (options, tag, index, code)
    assert parts.check == secret.check(tag)
    bare = code.replace("-", "")
    typo = bare[:3] + ("2" if bare[3] != "2" else "3") + bare[4:]
    with pytest.raises(CodeError):
        read_private(typo)


def test_a_private_code_never_rebuilds_without_its_secret():
    code = private_coder(DrawOptions(), 7, new_secret())(0)
    with pytest.raises(SecretError, match="needs the teacher's secret file"):
        rebuild(code)
    with pytest.raises(CodeError, match="private code"):
        decode_code(code)


def test_every_public_code_printed_before_rebuilds_as_before():
    # Versions 1-4 and own codes are read as they were: a public code is never taken for a private one.
    for options in (DrawOptions(), DrawOptions(heads=2, output_projection=True), kind_options("transformer")):
        problem = draw(options, 2026, count=1, start=4)[0]
        assert read_private(problem.code) is None and same_numbers(rebuild(problem.code), problem)
