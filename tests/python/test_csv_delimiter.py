"""Issue 41: CSV files separated by ';' or tabs, as Excel and R write them, read by every CLI
command that reads CSV (--delimiter, --decimal) and by assay.io.read_csv (delimiter=,
decimal=). Without a delimiter, a header separated by ';' or tabs (one of the two only) is read
with that separator and a note says so; a detected ';' brings the decimal comma. The numbers
equal those of the same data written with commas (the comma file is the peer)."""
import json
import warnings

import numpy as np
import pytest

import assay.io
from assay import _assay

AssayError = _assay.AssayError

ROWS = [(1, 0.75, 0.5, "a"), (0, 0.25, 0.125, "b"), (1, 0.625, 0.875, "a"),
        (0, 0.375, 0.25, "b"), (1, 1.5e-3, 0.75, "a"), (0, 0.0625, 0.375, "b"),
        (1, 0.875, 0.625, "b"), (0, 0.5, 0.0625, "a")]
HEADER = ["y", "p", "q", "site"]


def write(path, text, bom=False):
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    return path


def comma_file(tmp_path):
    lines = [",".join(HEADER)] + [",".join(map(repr_number, r)) for r in ROWS]
    return write(tmp_path / "comma.csv", "\n".join(lines) + "\n")


def repr_number(v, comma=False):
    text = v if isinstance(v, str) else repr(v)
    return text.replace(".", ",") if comma else text


def excel_semicolon_file(tmp_path):
    # Excel's "CSV (semicolon)" where the decimal mark is a comma: UTF-8 BOM, ';', CRLF.
    lines = [";".join(HEADER)] + [";".join(repr_number(v, comma=True) for v in r) for r in ROWS]
    return write(tmp_path / "excel.csv", "\r\n".join(lines) + "\r\n", bom=True)


def excel_tab_file(tmp_path):
    # Excel's "Text (Tab delimited)": tabs, CRLF, no BOM, decimal points.
    lines = ["\t".join(HEADER)] + ["\t".join(map(repr_number, r)) for r in ROWS]
    return write(tmp_path / "excel.txt", "\r\n".join(lines) + "\r\n")


def r_write_csv2_file(tmp_path):
    # R's write.csv2(df, row.names = FALSE): quoted names and text, ';', decimal comma, LF.
    lines = [";".join(f'"{h}"' for h in HEADER)]
    lines += [";".join(f'"{v}"' if isinstance(v, str) else repr_number(v, comma=True)
                       for v in r) for r in ROWS]
    return write(tmp_path / "r.csv", "\n".join(lines) + "\n")


DIALECTS = {
    "excel_semicolon": (excel_semicolon_file, "';'", ["--delimiter", ";", "--decimal", ","]),
    "excel_tab": (excel_tab_file, "a tab", ["--delimiter", "tab"]),
    "r_write_csv2": (r_write_csv2_file, "';'", ["--delimiter", ";", "--decimal", ","]),
}


def metrics_json(run_cli, path, *extra):
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), out.stderr


@pytest.mark.parametrize("dialect", DIALECTS)
def test_metrics_detects_the_separator_with_a_note(tmp_path, run_cli, dialect):
    make, shown, given = DIALECTS[dialect]
    path = make(tmp_path)
    peer, peer_err = metrics_json(run_cli, comma_file(tmp_path))
    assert "note" not in peer_err
    detected, err = metrics_json(run_cli, path)
    assert detected == peer
    assert f"assay: note: {path}: columns separated by {shown} (detected from the header)" in err
    explicit, err = metrics_json(run_cli, path, *given)
    assert explicit == peer
    assert "note" not in err


def test_python_reads_the_same_numbers_and_notes_the_detection(tmp_path):
    peer = assay.io.read_csv(comma_file(tmp_path))
    for make, _, _ in DIALECTS.values():
        path = make(tmp_path)
        with pytest.warns(assay.AssayWarning,
                          match=r"columns separated by .* \(detected from the header\)"):
            table = assay.io.read_csv(path)
        assert list(table) == HEADER
        for name in ("y", "p", "q"):
            np.testing.assert_array_equal(table[name], peer[name])
        assert list(table["site"]) == list(peer["site"])
    # Given, the delimiter is not noted (the words are the CLI's: "tab", "\t", ";").
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = assay.io.read_csv(excel_tab_file(tmp_path), delimiter="tab")
        np.testing.assert_array_equal(table["q"], peer["q"])
        table = assay.io.read_csv(excel_semicolon_file(tmp_path), delimiter=";", decimal=",")
        np.testing.assert_array_equal(table["p"], peer["p"])


def test_a_pipe_delimiter_and_decimal_comma_given(tmp_path, run_cli):
    lines = ["|".join(HEADER)] + ["|".join(repr_number(v, comma=True) for v in r) for r in ROWS]
    path = write(tmp_path / "pipe.csv", "\n".join(lines) + "\n")
    peer, _ = metrics_json(run_cli, comma_file(tmp_path))
    got, err = metrics_json(run_cli, path, "--delimiter", "|", "--decimal", ",")
    assert got == peer and "note" not in err


@pytest.mark.parametrize("command", ["compare", "shift", "runs", "cv", "soak"])
def test_every_csv_command_takes_the_delimiter(tmp_path, run_cli, command):
    # The same stem in two folders: cv and soak name data sets after it.
    (tmp_path / "c").mkdir()
    (tmp_path / "s").mkdir()
    peer_path = comma_file(tmp_path).rename(tmp_path / "c" / "data.csv")
    semi = excel_semicolon_file(tmp_path).rename(tmp_path / "s" / "data.csv")
    args = {
        "compare": ["--label", "y", "--models", "p,q", "--resamples", "50", "--json"],
        "shift": ["--target", "p", "--pred", "q", "--uncertainty", "y", "--json"],
        "runs": ["--value", "p", "--by", "q", "--json"],
    }
    if command in ("cv", "soak"):
        extra = ["--subset", "site"] if command == "soak" else []
        def results(path, out, *given):
            done = run_cli(command, path, "--label", "y", "--drop", "p", "--learners",
                           "featureless", "--folds", "2", "--out", tmp_path / out, *extra,
                           *given)
            assert done.returncode == 0, done.stderr
            rows = (tmp_path / out / "results.csv").read_text().splitlines()
            # Times differ from run to run: compare every column but those in seconds.
            header = rows[0].split(",")
            keep = [i for i, h in enumerate(header) if "second" not in h]
            return [[r.split(",")[i] for i in keep] for r in rows[1:]]
        peer = results(peer_path, "peer")
        assert results(semi, "given", "--delimiter", ";", "--decimal", ",") == peer
        assert results(semi, "detected") == peer
        return
    peer = run_cli(command, peer_path, *args[command])
    assert peer.returncode == 0, peer.stderr
    given = run_cli(command, semi, *args[command], "--delimiter", ";", "--decimal", ",")
    assert given.returncode == 0, given.stderr
    assert json.loads(given.stdout) == json.loads(peer.stdout)
    detected = run_cli(command, semi, *args[command])
    assert json.loads(detected.stdout) == json.loads(peer.stdout)
    assert "columns separated by ';' (detected from the header)" in detected.stderr


@pytest.mark.parametrize("value, message", [
    ("ab", 'expected one character such as \',\' \';\' \'|\', tab or auto, found "ab"'),
    ("", 'found ""'),
    ("x", 'found "x"'),
    ("'\"'", None),
])
def test_a_wrong_delimiter_is_refused(tmp_path, run_cli, value, message):
    value = '"' if value == "'\"'" else value
    out = run_cli("metrics", comma_file(tmp_path), "--label", "y", "--score", "p",
                  "--delimiter", value)
    assert out.returncode == 2
    assert out.stderr.startswith("assay: --delimiter: expected one character such as")
    if message:
        assert message in out.stderr
    with pytest.raises(AssayError, match="delimiter: expected one character"):
        assay.io.read_csv(comma_file(tmp_path), delimiter=value)


def test_a_wrong_decimal_is_refused(tmp_path, run_cli):
    out = run_cli("metrics", comma_file(tmp_path), "--label", "y", "--score", "p",
                  "--decimal", ";")
    assert out.returncode == 2
    assert "assay: --decimal: expected '.', ',' or auto, found \";\"" in out.stderr
    with pytest.raises(AssayError, match="decimal: expected '.', ',' or auto"):
        assay.io.read_csv(comma_file(tmp_path), decimal="x")


def test_rows_with_another_field_count_are_located(tmp_path, run_cli):
    path = write(tmp_path / "short.csv", "y;p;q\r\n1;0,5;1\r\n0;0,25\r\n")
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f"{path}:3:1: expected 3 fields, found 2" in out.stderr
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--delimiter", ";",
                  "--decimal", ",")
    assert out.returncode == 2
    assert f"{path}:3:1: expected 3 fields, found 2" in out.stderr


def test_an_ambiguous_header_stays_refused(tmp_path, run_cli):
    # Both ';' and a tab between the names: no guess, the header is one column and refused.
    path = write(tmp_path / "both.csv", "y;p\tq\n1;0.5\t1\n")
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f"{path}:1:2: expected ',' between column names, found ';'" in out.stderr
    assert "--delimiter ';' --decimal ','" in out.stderr


def test_a_comma_given_on_a_semicolon_file_is_refused(tmp_path, run_cli):
    path = excel_semicolon_file(tmp_path)
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--delimiter", ",")
    assert out.returncode == 2
    assert f"{path}:1:2: expected ',' between column names, found ';'" in out.stderr
    assert "--delimiter ';' --decimal ','" in out.stderr


def test_decimal_commas_in_a_tab_file_name_the_decimal_option(tmp_path, run_cli):
    path = write(tmp_path / "eu.txt", "y\tp\n1\t0,75\n0\t0,25\n")
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert (f'{path}:2:3: expected a number, found "0,75" (a decimal comma: give the decimal '
            "mark, --decimal ',' or Python decimal=\",\")") in out.stderr
    got, _ = metrics_json(run_cli, path, "--decimal", ",")
    assert got["n_samples"] == 2


def test_a_planned_run_keeps_the_delimiter(tmp_path, run_cli):
    # `--plan` writes the delimiter into the registry: `assay job run` reads the files with it.
    semi = excel_semicolon_file(tmp_path)
    common = ["cv", semi, "--label", "y", "--drop", "site", "--learners", "featureless",
              "--folds", "2", "--delimiter", ";", "--decimal", ","]
    direct = run_cli(*common, "--out", tmp_path / "direct")
    assert direct.returncode == 0, direct.stderr
    assert run_cli(*common, "--plan", tmp_path / "plan", "--out", tmp_path / "planned")\
        .returncode == 0
    registry = json.loads((tmp_path / "plan" / "registry.json").read_text())
    assert '"csv": {"decimal": ",", "delimiter": ";"}' in json.dumps(registry, sort_keys=True)
    ran = run_cli("job", "run", tmp_path / "plan", "--all")
    assert ran.returncode == 0, ran.stderr
    assert "note" not in ran.stderr
    assert run_cli("job", "collect", tmp_path / "plan").returncode == 0

    def errors(folder):
        rows = (folder / "results.csv").read_text().splitlines()
        return [r.split(",")[:6] for r in rows]
    assert errors(tmp_path / "planned") == errors(tmp_path / "direct")


def report_numbers(run_cli, folder, extra=""):
    config = folder / "report.toml"
    config.write_text('[metrics]\nfile = "data.csv"\nlabel = "y"\nbootstrap = 20\n'
                      f'models = {{ p = "p", q = "q" }}\n{extra}')
    done = run_cli("report", config, "--json", "--out", folder / "page.html")
    return done, (json.loads(done.stdout) if done.returncode == 0 else None)


def test_report_sections_take_delimiter_and_decimal(tmp_path, run_cli):
    (tmp_path / "c").mkdir()
    (tmp_path / "s").mkdir()
    comma_file(tmp_path).rename(tmp_path / "c" / "data.csv")
    excel_semicolon_file(tmp_path).rename(tmp_path / "s" / "data.csv")
    peer_run, peer = report_numbers(run_cli, tmp_path / "c")
    assert peer_run.returncode == 0, peer_run.stderr
    given_run, given = report_numbers(run_cli, tmp_path / "s", 'delimiter = ";"\ndecimal = ","\n')
    assert given_run.returncode == 0, given_run.stderr
    assert "note" not in given_run.stderr
    assert given["metrics"] == peer["metrics"]
    detected_run, detected = report_numbers(run_cli, tmp_path / "s")
    assert "columns separated by ';' (detected from the header)" in detected_run.stderr
    assert detected["metrics"] == peer["metrics"]
    bad, _ = report_numbers(run_cli, tmp_path / "s", 'delimiter = "ab"\n')
    assert bad.returncode == 2
    assert ("report.toml:6:13: [metrics] delimiter: expected one character such as ',' ';' "
            "'|', tab or auto, found \"ab\"") in bad.stderr
