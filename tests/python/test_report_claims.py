"""Every sentence of the report's summary is true of the numbers beside it.

`assay report` keeps its summary as claims (document["claims"]: kind, subjects, facts, text).
For many seeded random and adversarial data sets — inverted models, ties, copies and monotone
transforms of a model, constant scores, tiny samples, weights, multi-class scores, hard
predictions, undefined metrics, and soak / cv / shift sections — this builds the report and
checks every claim three ways:

1. its facts are the page's numbers: the JSON document and the CSV tables the page offers;
2. its decision follows the rule, recomputed here from those numbers as printed;
3. its text says exactly that: the sentence is parsed back into names and numbers.

check_claims() is also run on the tour report (test_report_overview.py), which adds the
segmentation and counting sections.
"""
import csv
import math
import os
import re
import warnings

import numpy as np
import pytest

from assay import report

LEVEL = 0.05
NUM = r"-?\d+\.\d+"


def nan(x):
    return math.nan if x is None else float(x)


def same(a, b):
    a, b = nan(a), nan(b)
    return (math.isnan(a) and math.isnan(b)) or a == b


def printed(value, decimals):
    value = nan(value)
    return value if not math.isfinite(value) else float(f"{value:.{decimals}f}")


def text_of(value, decimals):
    value = nan(value)
    return f"{value:.{decimals}f}" if math.isfinite(value) else "undefined"


def percent_text(fraction, decimals=1):
    fraction = nan(fraction)
    return f"{100 * fraction:.{decimals}f} %" if math.isfinite(fraction) else "undefined"


def interval_text(value, low, high, decimals=3):
    """A value as the summary prints it with its interval (both bounds finite) — the reading
    of a parsed sentence, compared with the facts."""
    out = text_of(value, decimals)
    if out != "undefined" and math.isfinite(nan(low)) and math.isfinite(nan(high)):
        out += f" [{nan(low):.{decimals}f}, {nan(high):.{decimals}f}]"
    return out


def p_text(p):
    p = nan(p)
    if math.isnan(p):
        return "p undefined"
    if p == 0:
        return "p < 1e-300"
    return f"p = {p:.1e}" if p < 1e-3 else f"p = {p:.3f}"


def names_text(names):
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def read_tables(folder):
    tables = {}
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), newline="", encoding="utf-8") as f:
                tables[name[:-4]] = list(csv.DictReader(f))
    return tables


def match(pattern, text):
    m = re.fullmatch(pattern, text)
    assert m, f"not a sentence of this kind:\n{text}\npattern: {pattern}"
    return m


# --- metrics -----------------------------------------------------------------------------------

def own_auc(model):
    """A model's own ROC AUC (binary or macro one-vs-rest), or None."""
    summary = model["summary"]
    return summary.get("ROC AUC") or summary.get("ROC AUC (one-vs-rest, macro)")


def looks_inverted(model):
    auc = own_auc(model)
    return auc is not None and printed(auc["value"], 3) < 0.5


def ranking_measure(models):
    for name in ["ROC AUC", "ROC AUC (one-vs-rest, macro)"]:
        if all(name in m["summary"] for m in models.values()):
            return name
    return "accuracy"


def listed_values(values_text, names):
    """"a 0.873 [0.851, 0.894], b undefined" -> {name: printed text}, names in order."""
    out, rest = {}, values_text
    for i, name in enumerate(names):
        assert rest.startswith(name + " "), (name, values_text)
        rest = rest[len(name) + 1:]
        end = len(rest) if i + 1 == len(names) else rest.index(", " + names[i + 1] + " ")
        out[name] = rest[:end]
        rest = rest[end + 2:]
    return out


def check_ranking(claim, doc, tables):
    f, names, text = claim["facts"], claim["subjects"], claim["text"]
    models = doc["metrics"]["models"]
    assert names == list(models)
    measure = ranking_measure(models)
    assert f["measure"] == measure
    summary_rows = {(r["metric"], r["model"]): r for r in tables["metrics-summary"]}
    for k, name in enumerate(names):
        est = models[name]["summary"].get(measure, {"value": None, "low": None, "high": None})
        assert same(f["values"][k], est["value"]) and same(f["lows"][k], est["low"])
        assert same(f["highs"][k], est["high"])
        if (measure, name) in summary_rows:  # the page's table says the same
            assert same(f["values"][k], summary_rows[measure, name]["value"] or None)
    # The rule, from the values as printed.
    shown = [printed(v, 3) for v in f["values"]]
    chance = math.nan if measure == "accuracy" else 0.5
    assert same(f["chance"], chance)
    inverted = [k for k, name in enumerate(names) if looks_inverted(models[name])]
    assert f["excluded"] == inverted
    above = [s for k, s in enumerate(shown)
             if math.isfinite(s) and not s <= chance and k not in inverted]
    top = max(above, default=math.nan)
    best = [k for k, s in enumerate(shown) if s == top and k not in inverted]
    outcome = ("single" if len(names) == 1 else
               "undefined" if not any(math.isfinite(s) for s in shown) else
               ("best" if len(best) == 1 else "tie") if best else
               "all_inverted" if math.isnan(chance) else "none_above_chance")
    assert f["outcome"] == outcome and f["best"] == best, (f, shown)
    for k in best:  # never an inverted or chance-level model
        assert chance != chance or shown[k] > chance
    # Whether the lead is established: DeLong's paired test where every pair was tested, else
    # the printed intervals.
    if outcome != "best":
        assert f["lead"] is None
        uncertain = []
    else:
        b = best[0]
        tested_p = {frozenset((r["model A"], r["model B"])): nan(r["DeLong p"] or None)
                    for r in tables.get("metrics-comparisons", [])}
        others = [k for k in range(len(names)) if k != b]
        tested = measure == "ROC AUC" and all(frozenset((names[b], names[k])) in tested_p
                                              for k in others)
        bounds = [(printed(lo, 3), printed(hi, 3)) for lo, hi in zip(f["lows"], f["highs"])]
        intervals = all(map(math.isfinite, bounds[b]))
        assert f["lead"]["how"] == ("delong" if tested else "intervals" if intervals else "none")
        uncertain = []
        for k in others:
            if not math.isfinite(shown[k]):
                continue
            if tested:
                p = tested_p[frozenset((names[b], names[k]))]
                if not p < LEVEL:
                    uncertain.append((k, p))
            elif intervals and all(map(math.isfinite, bounds[k])) and \
                    max(bounds[b][0], bounds[k][0]) <= min(bounds[b][1], bounds[k][1]):
                uncertain.append((k, None))
        got = [(u["model"], u["p"]) for u in f["lead"]["uncertain"]]
        assert [k for k, _ in got] == [k for k, _ in uncertain]
        for (_, p), (_, q) in zip(got, uncertain):
            assert same(p, q)
    # The sentence.
    conf = nan(f["confidence"])
    intervals = (rf" \({100 * conf:g}% bootstrap intervals?\)" if math.isfinite(conf) else "")
    heads = {
        "single": rf"Metrics: {re.escape(measure)} of (?P<values>.+){intervals}\.",
        "undefined": rf"Metrics: {re.escape(measure)} is undefined for every model: "
                     rf"(?P<values>.+){intervals}\.",
        "none_above_chance": rf"Metrics: no model is better than chance by {re.escape(measure)} "
                             rf"\(all at or below 0\.5\): (?P<values>.+){intervals}\.",
        "all_inverted": rf"Metrics: no model ranks best by {re.escape(measure)}, as the scores of "
                        rf"every defined one look inverted: (?P<values>.+){intervals}\.",
        "tie": rf"Metrics: (?P<who>.+) tie for best by {re.escape(measure)}: "
               rf"(?P<values>.+?){intervals}\.",
        "best": rf"Metrics: (?P<who>.+?) ranks best by {re.escape(measure)}: (?P<values>.+?)"
                rf"{intervals}\.(?: Its lead over (?P<lead>.+) is not significant at level "
                rf"0\.05: the data do not tell them apart at this sample size\.| Its interval "
                rf"overlaps that of (?P<over>.+): the data may not tell them apart at this "
                rf"sample size\.)?",
    }
    m = match(heads[outcome], text)
    if outcome in ("tie", "best"):
        assert m["who"] == names_text([names[k] for k in best])
    if outcome == "best":
        how = f["lead"]["how"]
        said = [names[k] + (f" (DeLong {p_text(p)})" if how == "delong" else "")
                for k, p in uncertain]
        assert (m["lead"] or "") == (names_text(said) if said and how == "delong" else "")
        assert (m["over"] or "") == (names_text(said) if said and how == "intervals" else "")
    shown_values = listed_values(m["values"], names)
    for k, name in enumerate(names):
        assert shown_values[name] == interval_text(f["values"][k], f["lows"][k], f["highs"][k])


def check_inverted(claim, doc, tables):
    f, (name,) = claim["facts"], claim["subjects"]
    model = doc["metrics"]["models"][name]
    auc = own_auc(model)
    assert f["measure"] in ("ROC AUC", "ROC AUC (one-vs-rest, macro)")
    assert same(f["value"], auc["value"]) and same(f["high"], auc["high"])
    assert printed(f["value"], 3) < 0.5 == f["chance"]
    assert same(f["reversed"], 1 - nan(f["value"]))
    m = match(rf"{re.escape(name)}'s scores look inverted: its {re.escape(f['measure'])} "
              rf"(?P<v>.+) is below chance \(0\.5\), so (?P<how>.+); reversed, they would give "
              rf"(?P<r>{NUM})\.(?P<reach> Its interval reaches 0\.5: it may also be no better "
              rf"than chance\.)?", claim["text"])
    assert m["v"] == interval_text(f["value"], f["low"], f["high"])
    assert m["r"] == text_of(1 - nan(f["value"]), 3)
    assert bool(m["reach"]) == (printed(f["high"], 3) >= 0.5)
    if model["binary"]:
        assert m["how"] == (f'higher scores go with the other class, not with '
                            f'"{model["positive_class"]}"')
    else:
        assert m["how"] == "they rank the classes the wrong way round on average"


def check_operating_point(claim, doc, tables):
    f, (name,) = claim["facts"], claim["subjects"]
    ranking = next(c for c in doc["claims"] if c["kind"] == "metrics.ranking")
    assert ranking["facts"]["outcome"] == "best"
    assert ranking["subjects"][ranking["facts"]["best"][0]] == name
    model = doc["metrics"]["models"][name]
    assert f["rule"] == model["prediction_rule"] and f["positive"] == model["positive_class"]
    assert same(f["recall"], model["summary"]["recall"]["value"])
    assert same(f["precision"], model["summary"]["precision"]["value"])
    pos, rule = re.escape(f["positive"]), re.escape(f["rule"])
    if math.isfinite(nan(f["precision"])):
        m = match(rf"At the operating threshold \({rule}\), {re.escape(name)} finds (?P<r>.+) of "
                  rf'the "{pos}" cases(?P<w> \(by weight\))? with precision (?P<p>.+)\.',
                  claim["text"])
        assert m["p"] == percent_text(f["precision"])
        assert bool(m["w"]) == f["weighted"]
    else:
        m = match(rf"At the operating threshold \({rule}\), {re.escape(name)} predicts no case "
                  rf'"{pos}", so it finds (?P<r>.+) of them and its precision is undefined\.',
                  claim["text"])
    assert m["r"] == percent_text(f["recall"])


def pr_points(curve):
    return list(zip(curve["recall"], curve["precision"]))


def interpolated(points, u):
    return max((p for r, p in points if r >= u), default=0.0)


def pr_relation(curve_a, curve_b):
    """The textbook's dominance of interpolated PR curves (Figure 45), from the curves the page
    draws: (relation, crossings) — the oracle of the pair claim on unweighted data."""
    a, b = pr_points(curve_a), pr_points(curve_b)
    if a == b:
        return "same", []
    breaks = sorted({r for r, _ in a + b if r > 0} | {1.0})
    last, left, seen, crossings = 0, 0.0, set(), []
    for u in breaks:
        fa, fb = interpolated(a, u), interpolated(b, u)
        sign = 0 if abs(fa - fb) <= 1e-12 * max(abs(fa), abs(fb)) else (1 if fa > fb else -1)
        if sign:
            if last and sign != last:
                crossings.append(left)
            last = sign
            seen.add(sign)
        left = u
    if seen == {1, -1}:
        return "cross", crossings
    return {frozenset(): "same_interpolated", frozenset({1}): "a",
            frozenset({-1}): "b"}[frozenset(seen)], []


def check_pair(claim, doc, tables):
    f, (a, b) = claim["facts"], claim["subjects"]
    row = next(r for r in tables["metrics-comparisons"] if (r["model A"], r["model B"]) == (a, b))
    assert same(f["auc_a"], row["ROC AUC A"] or None) and same(f["auc_b"], row["ROC AUC B"] or None)
    assert same(f["p"], row["DeLong p"] or None)
    dominant = {"a": a, "b": b, "same": "same curve", "same_interpolated": "same interpolated curve",
                "cross": "none (curves cross)"}[f["relation"]]
    assert row["PR dominant"] == dominant
    assert float(row["PR crossings"]) == len(f["crossings"])
    assert (f["relation"] == "cross") == (len(f["crossings"]) > 0)
    models = doc["metrics"]["models"]
    # The ROC AUCs are the headline values, as in the summary table.
    assert same(f["auc_a"], models[a]["summary"]["ROC AUC"]["value"])
    assert same(f["auc_b"], models[b]["summary"]["ROC AUC"]["value"])
    if not f["weighted"]:  # the oracle reads the drawn curves, which are weighted otherwise
        ca, cb = models[a]["curves"]["pr"][0], models[b]["curves"]["pr"][0]
        relation, crossings = pr_relation(ca, cb)
        assert f["relation"] == relation, (relation, claim["text"])
        assert f["crossings"] == crossings
    m = match(rf"{re.escape(a)} vs {re.escape(b)}: ROC AUC difference "
              rf"(?P<d>undefined|[+-]\d+\.\d{{3}}) \(DeLong (?P<p>p undefined|p [=<] [^,)]+)"
              rf"(?:, (?P<sig>not )?significant at level 0\.05)?\); (?P<rel>.+?)\."
              rf"(?P<w> DeLong's test and the PR comparison ignore the weights\.)?",
              claim["text"])
    assert bool(m["w"]) == f["weighted"]
    d = nan(f["auc_a"]) - nan(f["auc_b"])
    assert m["d"] == (f"{d:+.3f}" if math.isfinite(d) else "undefined")
    assert m["p"] == p_text(f["p"])
    p = nan(f["p"])
    if math.isfinite(p):
        assert (m["sig"] is None) == (p < LEVEL)
    rel, A, B = m["rel"], re.escape(a), re.escape(b)
    if f["relation"] == "same":
        match(rf"{A} and {B} have the same PR curve, point for point", rel)
    elif f["relation"] == "same_interpolated":
        r = match(rf"{A} and {B} have the same interpolated PR curve, but their raw curves "
                  rf"differ \(AP (?P<x>\S+) vs (?P<y>\S+)\)", rel)
        assert (r["x"], r["y"]) == (text_of(f["ap_a"], 3), text_of(f["ap_b"], 3))
    elif f["relation"] in ("a", "b"):
        win, lose = (A, B) if f["relation"] == "a" else (B, A)
        match(rf"{win}'s interpolated PR curve dominates {lose}'s \(at least as high at every "
              rf"recall, higher at some\)", rel)
    else:
        r = match(rf"the interpolated PR curves of {A} and {B} cross (?P<n>\d+) times? \(at "
                  rf"recall (?P<at>[\d., ]+?)(?: and (?P<more>\d+) more)?\): which is better "
                  rf"depends on the operating point", rel)
        crossings = f["crossings"]
        assert int(r["n"]) == len(crossings)
        listed = r["at"].split(", ")
        assert len(listed) == min(3, len(crossings))
        assert int(r["more"] or 0) == len(crossings) - len(listed)
        for value, shown in zip(crossings, listed):
            assert f"{value:.{len(shown.split('.')[1])}f}" == shown
        assert len(set(f"{v:.{len(listed[0].split('.')[1])}f}" for v in crossings)) == \
            len(crossings)  # the decimals tell every crossing apart


def check_metrics_completeness(doc):
    """Every inverted model is called inverted; the best model's operating point is described."""
    claims = doc["claims"]
    ranking = next(c for c in claims if c["kind"] == "metrics.ranking")["facts"]
    inverted = {c["subjects"][0] for c in claims if c["kind"] == "metrics.inverted"}
    names = list(doc["metrics"]["models"])
    assert inverted == {n for n, m in doc["metrics"]["models"].items() if looks_inverted(m)}
    operating = [c for c in claims if c["kind"] == "metrics.operating_point"]
    if ranking["outcome"] == "best":
        best = doc["metrics"]["models"][names[ranking["best"][0]]]
        assert len(operating) == (1 if best["binary"] and "recall" in best["summary"] else 0)
    else:
        assert not operating


# --- soak, cv ----------------------------------------------------------------------------------

def decimals_for(v):
    """Three significant digits, 1 to 6 decimals (fold differences and their SD)."""
    v = nan(v)
    if not math.isfinite(v) or v == 0:
        return 1
    return min(6, max(1, 2 - math.floor(math.log10(abs(v)))))


def check_pooling(claim, doc, tables):
    f, (learner,) = claim["facts"], claim["subjects"]
    rows = [r for r in tables["soak-pvalues"] if r["learner"] == learner
            and float(r["n.train.groups"]) == 0]
    multi = len({r["data"] for r in tables["soak-pvalues"]}) > 1
    for key, comparison in (("other", "other"), ("all", "all")):
        mine = [r for r in rows if r["comparison"].lower().startswith(comparison)]
        assert len(f[key]) == len(mine)
        for t, r in zip(f[key], mine):
            where = r["test.subset"] + (" of " + r["data"] if multi else "")
            assert t["where"] == where
            assert same(t["difference"], r["mean_diff"] or None)
            assert same(t["sd"], r["sd_diff"] or None) and same(t["p"], r["p_paired"] or None)
    higher = f["measure"] == "auc"
    assert f["higher_better"] == higher
    text = claim["text"]
    significant = [t for t in f["other"] if nan(t["p"]) < LEVEL]
    undefined = [t for t in f["other"] if math.isnan(nan(t["p"]))]
    worse = (lambda d: d < 0) if higher else (lambda d: d > 0)
    for t in undefined:  # named with its reason, never read as "no difference"
        d, reason = nan(t["difference"]), t["reason"]
        assert reason
        said = f"{t['where']} ({reason}"
        if reason == "all differences equal" and math.isfinite(d):
            said += f": {d:+.{decimals_for(d)}f} in every fold"
        assert said + ")" in text
    if len(undefined) == len(f["other"]):
        assert text.startswith(f"Same/Other/All: for {learner}, no Other\u2212Same t-test is "
                               "defined \u2014 ")
        assert "so no test says whether the subsets can be pooled at this sample size." in text
    elif not significant:
        assert text.startswith(
            f"Same/Other/All: for {learner}, training on the other subsets instead of the same "
            f"one makes no significant difference on any test subset (paired t-tests over folds, "
            f"all p \u2265 0.05{'; no test on ' if undefined else '):'}")
        assert ("): no evidence against pooling the subsets at this sample size." in text)
    else:
        for t in significant:
            d = nan(t["difference"])
            k = decimals_for(d)
            assert f"{abs(d):.{k}f} \u00b1 {nan(t['sd']):.{k}f} " in text
            assert (f"{'worse' if worse(d) else 'better'} on {t['where']} ({p_text(t['p'])})"
                    in text)
        head = text.split(" than trained")[0]
        for t in f["other"]:
            if not nan(t["p"]) < LEVEL:
                assert f" on {t['where']} (" not in head
        assert "those subsets differ, pool them with care." in text
        assert (" No test on " in text) == bool(undefined)
    effects = [t for t in f["all"] if nan(t["p"]) < LEVEL]
    assert ("Training on all subsets" in text) == bool(effects)
    for t in effects:
        d = nan(t["difference"])
        assert (f"{'hurts' if worse(d) else 'helps'} on {t['where']} "
                f"({d:+.{decimals_for(d)}f}, {p_text(t['p'])})") in text


def check_cv(claim, doc, tables):
    f, learners, text = claim["facts"], claim["subjects"], claim["text"]
    rows = {(r["data"], r["learner"]): r for r in tables["cv-summary"]}
    datas = sorted({d for d, _ in rows})
    data = f["data"] or datas[0]
    assert len(learners) == len([1 for d, _ in rows if d == data])
    for i, learner in enumerate(learners):
        r = rows[data, learner]
        assert same(f["means"][i], r["mean"] or None) and same(f["sds"][i], r["sd"] or None)
    lower = f["measure"] != "auc"
    assert f["lower_better"] == lower
    means = [printed(v, 2) for v in f["means"]]
    defined = [m for m in means if math.isfinite(m)]
    # Order: best first, undefined last.
    assert means[:len(defined)] == sorted(defined, reverse=not lower)
    top = means[0] if defined else math.nan
    best = [i for i, m in enumerate(means) if m == top]
    sds = [printed(v, 2) for v in f["sds"]]
    close = [i for i, m in enumerate(means) if math.isfinite(m) and m != top
             and abs(m - top) <= max(sds[i], sds[0])]
    assert f["best"] == best and f["close"] == close
    word = "lowest" if lower else "highest"
    if len(best) == 1:
        assert f"{learners[best[0]]} has the {word}: " in text
    elif best:
        assert f"{names_text([learners[i] for i in best])} tie for the {word}: " in text
    else:
        assert "every learner is undefined" in text
    unit = " %" if f["measure"] == "error_percent" else ""
    for i, learner in enumerate(learners):
        shown = (f"{nan(f['means'][i]):.2f} \u00b1 {nan(f['sds'][i]):.2f}{unit}"
                 if math.isfinite(means[i]) else "undefined")
        assert f"{learner} {shown}" in text
    if close:
        assert (f" {names_text([learners[i] for i in close])} "
                f"{'is' if len(close) == 1 else 'are'} within one fold SD of it: not clearly "
                f"worse at this sample size.") in text
    else:
        assert "within one fold SD" not in text


# --- shift, segment, count ---------------------------------------------------------------------

def check_shift(claim, doc, tables):
    f, (model,), text = claim["facts"], claim["subjects"], claim["text"]
    rows = [r for r in doc["shift"]["rows"] if r["model"] == model]
    by_set = {(r["set"], r["kind"]): r for r in rows}
    key = {"RMSE": "rmse", "MAE": "mae", "error rate": "mean_error"}[f["headline"]]
    name = f["headline"]

    def value_text(v):
        if name == "error rate":
            return percent_text(v["value"])
        return interval_text(v["value"], v["low"], v["high"])

    if "in" in f:
        a, b = f["in"], f["out"]
        ra = by_set[a["set"], "partition"]
        rb = by_set[b["set"], "partition"]
        for v, r in ((a, ra), (b, rb)):
            if key == "mean_error":
                assert same(v["value"], r["mean_error"])
            else:
                assert same(v["value"], r[key]["value"])
                assert same(v["low"], r[key]["low"]) and same(v["high"], r[key]["high"])
        assert rb["n_shifted"] == rb["n"] and ra["n_shifted"] == 0
        x = printed(100 * nan(a["value"]), 1) if name == "error rate" else printed(a["value"], 3)
        y = printed(100 * nan(b["value"]), 1) if name == "error rate" else printed(b["value"], 3)
        change = ("goes" if not (math.isfinite(x) and math.isfinite(y)) else
                  "rises" if y > x else "falls" if y < x else "stays")
        if change == "stays":
            assert text.startswith(
                f"Shift: on the shifted partition {b['set']} the {name} of {model} is as on "
                f"{a['set']} ({value_text(a)} and {value_text(b)})")
            assert value_text(a).split(" [")[0] == value_text(b).split(" [")[0]
        else:
            assert text.startswith(
                f"Shift: on the shifted partition {b['set']} the {name} of {model} {change} from "
                f"{value_text(a)} ({a['set']}) to {value_text(b)}")
    else:
        assert text.startswith(f"Shift: {model} on all samples")
    curve = next((c for c in doc["shift"].get("curves", []) if c["model"] == model), None)
    if curve is not None and "rejected" in f:
        x, retention = curve["x"], curve["retention"]
        full = max(range(len(x)), key=lambda i: (x[i], -i))
        at = min(range(len(x)), key=lambda i: (abs(x[i] - 0.9), i))
        total = nan(retention[full])
        if total > 0:
            assert same(f["rejected"], x[full] - x[at])
            assert abs(nan(f["removed"]) - (1 - retention[at] / total)) < 1e-12
    rejected = nan(f.get("rejected"))
    said = "most uncertain inputs removes" in text
    assert said == (math.isfinite(nan(f.get("removed"))) and printed(100 * rejected, 0) > 0)
    if said:
        share = percent_text(rejected, 0)
        assert (f"; rejecting the {share} most uncertain inputs removes "
                f"{percent_text(f['removed'], 0)} of its {f['error_name']} (random rejection: "
                f"{share} on average)") in text
    ood = nan(f.get("ood_auroc"))
    if math.isfinite(ood):
        all_row = next(r for r in rows if r["kind"] == "all")
        assert same(ood, all_row["ood_auroc"])
        s = printed(ood, 3)
        word = ("tells shifted from in-domain inputs apart" if s > 0.5 else
                "does not tell shifted from in-domain inputs apart" if s == 0.5 else
                "is lower on shifted than on in-domain inputs")
        assert f"; its uncertainty {word}" in text and f"AUROC {ood:.3f}" in text


def check_segment(claim, doc, tables):
    f, (model,), text = claim["facts"], claim["subjects"], claim["text"]
    sets = doc["segment"]["models"][model]["summary"]
    assert [s["set"] for s in f["sets"]] == [s["set"] for s in sets]
    for mine, theirs in zip(f["sets"], sets):
        assert mine["subjects"] == theirs["n_subjects"]
        for key, name in (("ndsc", "ndsc"), ("f1", "lesion_f1")):
            assert same(mine[key + "_mean"], theirs[name]["mean"])
            assert same(mine[key + "_sd"], theirs[name]["sd"])
        shown = {key: (f"{nan(mine[key + '_mean']):.1f} \u00b1 {nan(mine[key + '_sd']):.1f}"
                       if math.isfinite(nan(mine[key + "_mean"])) else "undefined")
                 for key in ("ndsc", "f1")}
        assert (f"{mine['set']} {mine['subjects']} subjects: nDSC {shown['ndsc']}, lesion F1 "
                f"{shown['f1']}") in text
    assert same(f["prr"], sets[0]["patient_prr"] if sets else None)
    prr = nan(f["prr"])
    if math.isfinite(prr):
        good = printed(prr, 2) > 0
        assert (f"with PRR {prr:.2f} (1 = as an oracle" in text) == good
        assert (f"no better than chance (PRR {prr:.2f})" in text) == (not good)


def check_count(claim, doc, tables):
    f, (model,), text = claim["facts"], claim["subjects"], claim["text"]
    result = doc["count"]["models"][model]
    assert same(f["accuracy"], result["accuracy"])
    assert text.startswith(f"Counting: over all {f['domain_shown']} inputs of the domain, "
                           f"{model}'s accuracy is {text_of(f['accuracy'], 4)}")
    if "precision" in f:
        assert f"its precision for \"{f['label']}\" is {text_of(f['precision'], 4)}" in text
    assert text.endswith(f" ({f['guarantee']}).")


# --- compare -----------------------------------------------------------------------------------

def check_compare_conclusion(claim, doc, tables):
    """The comparison's own sentence, word for word, in the summary."""
    f = claim["facts"]
    assert claim["subjects"] == [m["name"] for m in doc["compare"]["models"]]
    assert f["conclusion"] == doc["compare"]["conclusions"][f["index"]]
    assert claim["text"] == "Compare: " + f["conclusion"].rstrip(".") + "."


def check_compare_gate_failed(claim, doc, tables):
    f = claim["facts"]
    gate = next(g for g in doc["compare"]["gates"]
                if g["gate"] == f["gate"] and g["model"] == claim["subjects"][0])
    assert not gate["passed"] and same(f["value"], gate["value"])
    assert f["message"] == gate["message"]
    assert any(r["result"] == "FAIL" and r["why"] == f["message"] for r in tables["compare-gates"])
    assert claim["text"] == "Compare: gate FAILED: " + f["message"]


def check_compare_gates_passed(claim, doc, tables):
    gates = doc["compare"]["gates"]
    assert doc["compare"]["passed"] is True and all(g["passed"] for g in gates)
    assert claim["facts"]["gates"] == list(dict.fromkeys(g["gate"] for g in gates))
    assert all(r["result"] == "pass" for r in tables["compare-gates"])
    names = claim["facts"]["gates"]
    assert claim["text"] == (f"Compare: the gate {names[0]} passed." if len(names) == 1 else
                             f"Compare: every gate passed ({', '.join(names)}).")


def _interval_text(f):
    return f"{f['value']:.4f} [{f['low']:.4f}, {f['high']:.4f}]"


def check_regression_model(claim, doc, tables):
    """One regressor: its MAE and R² are the section's, as printed."""
    (name,) = claim["subjects"]
    summary = doc["regression"]["models"][name]["summary"]
    f = claim["facts"]
    for key in ("mae", "r2"):
        assert same(f[key]["value"], summary[key]["value"])
    assert claim["text"].startswith(f"Regression: {name}: MAE {printed(f['mae']['value'], 4):.4f}")


def check_regression_lowest_error(claim, doc, tables):
    """Several regressors: the first subject has the lowest MAE as printed (4 decimals), and each
    overlap flag is what the printed intervals show."""
    mae = {m: doc["regression"]["models"][m]["summary"]["mae"] for m in claim["subjects"]}
    best = claim["subjects"][0]
    shown = {m: printed(mae[m]["value"], 4) for m in mae}
    assert shown[best] == min(shown.values())
    assert claim["facts"]["tied"] == (sorted(shown.values())[:2].count(shown[best]) > 1)
    for facts, name in zip(claim["facts"]["models"], claim["subjects"]):
        assert same(facts["value"], mae[name]["value"])
    if claim["facts"]["tied"]:
        return
    b = mae[best]
    for facts, name in zip(claim["facts"]["models"][1:], claim["subjects"][1:]):
        o = mae[name]
        overlap = (printed(b["low"], 4) <= printed(o["high"], 4)
                   and printed(o["low"], 4) <= printed(b["high"], 4))
        assert facts["overlaps_best"] == overlap
        assert f"{name}'s {_interval_text(o)}" in claim["text"]
    assert claim["text"].startswith(f"Regression: {best} has the lowest MAE, {_interval_text(b)}")


CHECKS = {
    "metrics.ranking": check_ranking,
    "metrics.inverted": check_inverted,
    "metrics.operating_point": check_operating_point,
    "metrics.pair": check_pair,
    "soak.pooling": check_pooling,
    "cv.ranking": check_cv,
    "regression.model": check_regression_model,
    "regression.lowest_error": check_regression_lowest_error,
    "shift.model": check_shift,
    "segment.model": check_segment,
    "count.model": check_count,
    "compare.conclusion": check_compare_conclusion,
    "compare.gate_failed": check_compare_gate_failed,
    "compare.gates_passed": check_compare_gates_passed,
}


def check_claims(doc, tables_folder, page=None):
    """Checks every claim of a built report; returns the kinds seen."""
    tables = read_tables(tables_folder)
    assert doc["summary"] == [c["text"] for c in doc["claims"]]
    for claim in doc["claims"]:
        CHECKS[claim["kind"]](claim, doc, tables)
    if "metrics" in doc:
        check_metrics_completeness(doc)
        pairs = [tuple(c["subjects"]) for c in doc["claims"] if c["kind"] == "metrics.pair"]
        assert pairs == [(r["model A"], r["model B"])
                         for r in tables.get("metrics-comparisons", [])]
    if page is not None:
        html = open(page, encoding="utf-8").read()
        for claim in doc["claims"]:
            shown = (claim["text"].replace("&", "&amp;").replace("<", "&lt;")
                     .replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#39;"))
            assert shown in html
    return {c["kind"] for c in doc["claims"]}



# --- data sets ---------------------------------------------------------------------------------

def binary_models(rng, y, kinds):
    """Score columns of the given kinds for labels y (0/1)."""
    n = len(y)
    good = 1 / (1 + np.exp(-(rng.normal(0, 1, n) + rng.uniform(0.5, 3) * (2 * y - 1))))
    columns = {}
    for i, kind in enumerate(kinds):
        if kind == "good":
            s = good
        elif kind == "other":
            s = 1 / (1 + np.exp(-(rng.normal(0, 1, n) + rng.uniform(0, 2) * (2 * y - 1))))
        elif kind == "inverted":
            s = 1 - good
        elif kind == "strongly_inverted":
            s = np.where(y == 1, 0.01, 0.99) + rng.uniform(-0.005, 0.005, n)
        elif kind == "copy":
            s = good.copy()
        elif kind == "monotone":  # other numbers, the same ranking: the same curves
            s = good ** 3
        elif kind == "constant":
            s = np.full(n, 0.5)
        elif kind == "coarse":  # heavy ties
            s = np.round(good, 1)
        elif kind == "sharp":  # sure of some positives, noisy elsewhere: crosses "good"
            clear = (y == 1) & (rng.random(n) < 0.5)
            s = np.where(clear, 0.95 + 0.04 * rng.random(n), 0.9 * rng.random(n))
        elif kind == "noise":
            s = rng.uniform(0, 1, n)
        elif kind == "swap":  # good with two neighbours swapped: nearly equal
            s = good.copy()
            order = np.argsort(s)
            j = rng.integers(0, n - 1)
            s[order[j]], s[order[j + 1]] = s[order[j + 1]], s[order[j]]
        else:
            raise ValueError(kind)
        columns[f"{kind}{i}"] = s
    return columns


def write_csv(path, columns):
    names = list(columns)
    cell = lambda v: v if isinstance(v, str) else repr(float(v))  # noqa: E731
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(names) + "\n")
        for i in range(len(columns[names[0]])):
            f.write(",".join(cell(columns[c][i]) for c in names) + "\n")


KINDS = ["good", "other", "inverted", "strongly_inverted", "copy", "monotone", "constant",
         "coarse", "noise", "swap", "sharp", "sharp"]


def random_binary_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([3, 4, 6, 9, 15, 40, 120]))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, size=int(rng.integers(1, n)), replace=False)] = 1
    kinds = list(rng.choice(KINDS, size=int(rng.integers(1, 5)), replace=True))
    if seed % 3 == 0 and "good" not in kinds:
        kinds.append("good")  # copies and transforms refer to it
    columns = {"y": np.where(y == 1, "pos", "neg")}
    columns.update(binary_models(rng, y, kinds))
    config = {"label": "y", "models": {k: k for k in columns if k != "y"},
              "bootstrap": int(rng.choice([0, 0, 30])), "seed": seed}
    if seed % 4 == 1:
        columns["w"] = rng.choice([0.0, 0.5, 1.0, 2.0], size=n)  # zero: classes may vanish
        config["weight"] = "w"
    if seed % 5 == 2:
        config["threshold"] = float(rng.choice([0.0, 0.3, 0.99, 2.0]))
    return columns, config


def random_multiclass_case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([6, 12, 60]))
    classes = ["a", "b", "c"]
    y = np.array([classes[i % 3] for i in rng.permutation(n)])
    onehot = np.array([[float(c == label) for c in classes] for label in y])
    columns = {"y": y}
    models = {}
    for m, kind in enumerate(rng.choice(["good", "inverted", "noise", "pred"], size=3)):
        if kind == "pred":
            columns[f"pred{m}"] = np.array([classes[i] for i in rng.integers(0, 3, n)])
            models[f"pred{m}"] = {"pred": f"pred{m}"}
            continue
        p = {"good": onehot * 2 + rng.uniform(0, 1, (n, 3)),
             "inverted": (1 - onehot) * 2 + rng.uniform(0, 1, (n, 3)),
             "noise": rng.uniform(0, 1, (n, 3))}[kind]
        p = p / p.sum(axis=1, keepdims=True)
        cols = []
        for k, c in enumerate(classes):
            columns[f"{kind}{m}_{c}"] = p[:, k]
            cols.append(f"{kind}{m}_{c}")
        models[f"{kind}{m}"] = cols
    return columns, {"label": "y", "models": models, "bootstrap": int(rng.choice([0, 20])),
                     "seed": seed}


def build(tmp_path, name, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined metrics warn; the claims must say so
        doc = report.build(config, out=tmp_path / f"{name}.html")
    return doc, tmp_path / f"{name}_tables"


@pytest.mark.parametrize("seed", range(48))
def test_binary_claims_are_true(tmp_path, monkeypatch, seed):
    monkeypatch.chdir(tmp_path)
    columns, metrics = random_binary_case(seed)
    write_csv(tmp_path / "p.csv", columns)
    doc, tables = build(tmp_path, "r", {"metrics": {"file": "p.csv", **metrics}})
    check_claims(doc, tables, tmp_path / "r.html")


@pytest.mark.parametrize("seed", range(12))
def test_multiclass_claims_are_true(tmp_path, monkeypatch, seed):
    monkeypatch.chdir(tmp_path)
    columns, metrics = random_multiclass_case(seed)
    write_csv(tmp_path / "p.csv", columns)
    doc, tables = build(tmp_path, "r", {"metrics": {"file": "p.csv", **metrics}})
    check_claims(doc, tables)


@pytest.mark.parametrize("kinds, expect", [
    # The issue: a model with inverted scores (ROC AUC 0.0035, MCC -0.94) must not be "best".
    (["strongly_inverted"], {"metrics.inverted"}),
    (["strongly_inverted", "strongly_inverted"], {"metrics.inverted"}),
    (["strongly_inverted", "noise"], {"metrics.inverted"}),
    (["good", "strongly_inverted"], {"metrics.inverted", "metrics.operating_point"}),
    (["good", "copy"], {"metrics.pair"}),
    (["good", "monotone", "constant"], {"metrics.pair"}),
])
def test_adversarial_models(tmp_path, monkeypatch, kinds, expect):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(38)
    y = (np.arange(200) % 5 == 0).astype(int)
    columns = {"y": y.astype(str)}
    columns.update(binary_models(rng, y, kinds))
    write_csv(tmp_path / "p.csv", columns)
    doc, tables = build(tmp_path, "r", {"metrics": {"file": "p.csv", "label": "y",
                                                    "models": {k: k for k in columns if k != "y"},
                                                    "bootstrap": 50}})
    kinds_seen = check_claims(doc, tables, tmp_path / "r.html")
    assert expect <= kinds_seen
    ranking = doc["claims"][0]
    for claim in doc["claims"]:
        if claim["kind"] == "metrics.inverted":
            assert claim["subjects"][0] not in [ranking["subjects"][k]
                                                for k in ranking["facts"]["best"]]
    if "copy1" in columns or "monotone1" in columns:
        pair = next(c for c in doc["claims"] if c["kind"] == "metrics.pair")
        assert pair["facts"]["relation"] == "same"
        assert ranking["facts"]["outcome"] == "tie"


def learning_table(rng, n, subsets, noise):
    x1, x2 = rng.normal(0, 1, n), rng.normal(0, 1, n)
    region = np.array([subsets[i % len(subsets)] for i in range(n)])
    shift = np.array([subsets.index(r) for r in region]) * rng.uniform(0, 2)
    y = np.where(x1 + shift * x2 + noise * rng.normal(0, 1, n) > 0, "yes", "no")
    return {"x1": x1, "x2": x2, "region": region, "y": y}


@pytest.mark.parametrize("seed", range(6))
def test_soak_and_cv_claims_are_true(tmp_path, monkeypatch, seed):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(100 + seed)
    n = int(rng.choice([24, 60, 90]))
    write_csv(tmp_path / "d.csv", learning_table(rng, n, ["N", "S", "E"][:2 + seed % 2],
                                                  float(rng.choice([0.1, 1, 10]))))
    folds = int(rng.choice([2, 3, 4]))
    config = {
        "soak": {"file": "d.csv", "label": "y", "subset": "region", "folds": folds,
                 "learners": ["featureless", "cart"], "seed": seed},
        "cv": {"file": "d.csv", "label": "y", "drop": ["region"], "folds": folds,
               "learners": ["featureless", "cart", "knn"][:2 + seed % 2], "seed": seed},
    }
    doc, tables = build(tmp_path, "r", config)
    assert {"soak.pooling", "cv.ranking"} <= check_claims(doc, tables, tmp_path / "r.html")


@pytest.mark.parametrize("seed", range(8))
def test_shift_claims_are_true(tmp_path, monkeypatch, seed):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(200 + seed)
    n = int(rng.choice([6, 20, 200]))
    target = rng.normal(0, 1, n)
    partition = np.array(["dev_in", "eval_out"] * (n // 2))
    scale = np.where(partition == "eval_out", float(rng.choice([0.5, 1, 3])), 1.0)
    columns = {"t": target, "partition": partition}
    kind = seed % 4
    columns["good"] = target + rng.normal(0, 1, n) * scale
    columns["u_good"] = np.abs(columns["good"] - target) + rng.uniform(0, 0.5, n)
    columns["exact"] = target.copy()  # zero error: nothing to remove by rejecting
    columns["u_exact"] = np.full(n, 1.0) if kind else rng.uniform(0, 1, n)
    config = {"file": "s.csv", "target": "t", "pred": ["good", "exact"],
              "uncertainty": ["u_good", "u_exact"], "partition": "partition",
              "bootstrap": int(rng.choice([0, 30])), "seed": seed,
              "error": ["squared", "absolute", "zero-one", "squared"][kind]}
    if kind == 2:
        columns["good"] = np.round(columns["good"])
        columns["t"] = np.round(target)
        columns["exact"] = columns["t"].copy()
    write_csv(tmp_path / "s.csv", columns)
    doc, tables = build(tmp_path, "r", {"shift": config})
    assert "shift.model" in check_claims(doc, tables, tmp_path / "r.html")


def test_undefined_roc_auc_is_said_not_ranked(tmp_path, monkeypatch):
    """Every positive has weight 0: no model's ROC AUC is defined, none is ranked; the unweighted
    paired tests still run and say that they ignore the weights."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "z.csv").write_text("y,a,b,w\n1,0.9,0.2,0\n0,0.1,0.3,1\n1,0.8,0.1,0\n"
                                    "0,0.4,0.5,1\n", encoding="utf-8")
    doc, tables = build(tmp_path, "z", {"metrics": {"file": "z.csv", "label": "y", "weight": "w",
                                                    "models": {"a": "a", "b": "b"},
                                                    "bootstrap": 0}})
    check_claims(doc, tables, tmp_path / "z.html")
    assert doc["summary"][0] == ("Metrics: ROC AUC is undefined for every model: a undefined, "
                                 "b undefined.")
    assert doc["summary"][1].endswith(" DeLong's test and the PR comparison ignore the weights.")
