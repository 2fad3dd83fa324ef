#!/usr/bin/env python3
"""Checks of `brigade melee` that the shared case runner does not make.

usage:
  check_calculator.py exact-paths BRIGADE DIR   every case with expect_error in DIR:
        exit 2, nothing on stdout, exactly one line on stderr, and for a path
        (an expect_error without spaces) the line is "brigade melee:
        <expect_error>: ...": the first offending member is named exactly,
        not a parent or a neighbour. An expect_error with spaces (jansson's
        words for a parse error) need only be contained in the line.
  check_calculator.py bad-json BRIGADE DIR      the files of DIR/expected.json
        ("files": name -> fragment) cannot be read as JSON: exit 2, nothing on
        stdout, one line "brigade melee: ..." containing the fragment.
  check_calculator.py shape BRIGADE DIR         every case without expect_error:
        exit 0, nothing on stderr, and the output has the shape of
        shared/cases/README.md "Result".
  check_calculator.py usage BRIGADE             `brigade`, `brigade help`,
        an unknown command, `brigade melee` with no or two files.

Prints one line per failure and a closing count; exit 1 on any failure.
"""
import json
import os
import subprocess
import sys

def run(command):
    return subprocess.run(command, capture_output=True, text=True, timeout=20)


def one_error_line(process, label):
    """The problems with a run that must fail with exit 2 and one line."""
    problems = []
    if process.returncode != 2:
        problems.append(f"{label}: exit {process.returncode}, expected 2")
    if process.stdout:
        problems.append(f"{label}: wrote to stdout: {process.stdout[:100]!r}")
    if not process.stderr.endswith("\n") or process.stderr.count("\n") != 1:
        problems.append(f"{label}: stderr is not exactly one line: {process.stderr[:300]!r}")
    return problems


def case_files(directory):
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            yield os.path.join(directory, name)


def exact_paths(brigade, directory):
    problems, count = [], 0
    for path in case_files(directory):
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        if "expect_error" not in case:
            continue
        count += 1
        want = case["expect_error"]
        process = run([brigade, "melee", path])
        found = one_error_line(process, path)
        line = process.stderr.rstrip("\n")
        is_path = " " not in want  # jansson's messages have spaces; paths have none
        if is_path:
            prefix = "brigade melee: " + want
            if not line.startswith(prefix + ": "):
                found.append(f"{path}: expected 'brigade melee: {want}: ...', got {line!r}")
        elif want not in line or not line.startswith("brigade melee: "):
            found.append(f"{path}: expected a message containing {want!r}, got {line!r}")
        problems += found
    return problems, count


def bad_json(brigade, directory):
    with open(os.path.join(directory, "expected.json"), encoding="utf-8") as f:
        manifest = json.load(f)["files"]
    problems = []
    for name, fragment in manifest.items():
        if name == "(missing)":
            target = os.path.join(directory, "does_not_exist.json")
        elif name == "(directory)":
            target = directory
        else:
            target = os.path.join(directory, name)
        process = run([brigade, "melee", target])
        found = one_error_line(process, name)
        line = process.stderr.rstrip("\n")
        if not line.startswith("brigade melee: ") or fragment not in line:
            found.append(f"{name}: expected a message containing {fragment!r}, got {line!r}")
        problems += found
    listed = set(manifest)
    for name in sorted(os.listdir(directory)):
        if name != "expected.json" and name not in listed:
            problems.append(f"{name}: not listed in expected.json")
    return problems, len(manifest)


def check_modifiers(where, modifiers, dice, total):
    problems = []
    if not isinstance(modifiers, list):
        return [f"{where}.modifiers: not a list"]
    for i, m in enumerate(modifiers):
        if not (isinstance(m, dict) and set(m) == {"rule", "name", "value"}
                and isinstance(m["rule"], str) and isinstance(m["name"], str)
                and type(m["value"]) is int):
            problems.append(f"{where}.modifiers[{i}]: not {{rule, name, value}}: {m}")
            return problems
    if sum(m["value"] for m in modifiers) != total - sum(dice):
        problems.append(f"{where}: modifiers do not add up to total minus dice")
    return problems


def is_dice(value):
    return (isinstance(value, list) and len(value) == 2
            and all(type(v) is int and 1 <= v <= 6 for v in value))


def result_shape(case, result):
    """The problems with one result against cases/README.md "Result"."""
    problems = []
    scored = "score" in result
    order = ["winner"] + (["score", "difference"] if scored else []) + \
        ["result", "continues"] + (["speaks_for"] if scored else []) + ["units"]
    if list(result) != order:
        problems.append(f"members {list(result)}, expected {order}")
        return problems
    if result["winner"] not in ("A", "B", "none"):
        problems.append(f"winner {result['winner']!r}")
    if scored:
        score = result["score"]
        if set(score) != {"A", "B"} or result["difference"] != abs(score["A"] - score["B"]):
            problems.append(f"score {score} and difference {result['difference']} disagree")
    if (result["result"] == "auto") == scored:
        problems.append("score must be present exactly when result is not auto")
    ids = [u["id"] for u in case["melee"]["units"]]
    if list(result["units"]) != ids:
        problems.append(f"units {list(result['units'])}, expected {ids} in input order")
        return problems
    statuses = ("normal", "retreating", "broken", "pushed_back", "dispersed", "removed",
                "pursuing", "blown")
    for uid, unit in result["units"].items():
        where = f"units.{uid}"
        rolled = "total" in unit
        if rolled != scored:
            problems.append(f"{where}: total must be present exactly when dice were rolled")
        if rolled:
            if not is_dice(unit.get("dice")):
                problems.append(f"{where}.dice: {unit.get('dice')}")
                continue
            if "rolled_dice" in unit and (not is_dice(unit["rolled_dice"])
                                          or unit["rolled_dice"] == unit["dice"]):
                problems.append(f"{where}.rolled_dice: present but not different dice")
            problems += check_modifiers(where, unit.get("modifiers"), unit["dice"], unit["total"])
        elif any(k in unit for k in ("dice", "rolled_dice", "modifiers")):
            problems.append(f"{where}: dice or modifiers without a roll")
        for member in ("fighting_figures", "casualties", "figures"):
            if type(unit.get(member)) is not int or unit[member] < 0:
                problems.append(f"{where}.{member}: {unit.get(member)!r}")
        if unit.get("status") not in statuses:
            problems.append(f"{where}.status: {unit.get('status')!r}")
        if type(unit.get("formed")) is not bool:
            problems.append(f"{where}.formed: {unit.get('formed')!r}")
        events = unit.get("events")
        known = ["double_six", "risk_to_general", "sappers_used"]
        if not isinstance(events, list) or events != [e for e in known if e in events]:
            problems.append(f"{where}.events: {events!r}")
        test = unit.get("test")
        if test is not None:
            if test.get("kind") not in ("reform", "pursuit") or not is_dice(test.get("dice")) \
                    or type(test.get("total")) is not int \
                    or test.get("outcome") not in ("pass", "fail", "excellent", "unformed",
                                                   "blown", "pursuit"):
                problems.append(f"{where}.test: {test!r}")
            elif "modifiers" in test:
                problems += check_modifiers(where + ".test", test["modifiers"], test["dice"],
                                            test["total"])
    return problems


def shape(brigade, directory):
    problems, count = [], 0
    for path in case_files(directory):
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        if "expect_error" in case:
            continue
        count += 1
        process = run([brigade, "melee", path])
        if process.returncode != 0 or process.stderr:
            problems.append(f"{path}: exit {process.returncode}, stderr {process.stderr[:200]!r}")
            continue
        try:
            result = json.loads(process.stdout)
        except ValueError as e:
            problems.append(f"{path}: output is not JSON ({e})")
            continue
        problems += [f"{path}: {p}" for p in result_shape(case, result)]
    return problems, count


def usage(brigade):
    problems = []
    p = run([brigade])
    if p.returncode != 2 or "usage" not in p.stderr or p.stdout:
        problems.append(f"no arguments: exit {p.returncode}, stderr {p.stderr[:100]!r}")
    p = run([brigade, "help"])
    if p.returncode != 0 or "melee" not in p.stdout or "help" not in p.stdout or p.stderr:
        problems.append(f"help: exit {p.returncode}, stdout {p.stdout[:100]!r}")
    p = run([brigade, "frobnicate"])
    problems += one_error_line(p, "unknown command")
    if "frobnicate" not in p.stderr:
        problems.append(f"unknown command: message does not name it: {p.stderr!r}")
    problems += one_error_line(run([brigade, "melee"]), "melee without a file")
    problems += one_error_line(run([brigade, "melee", "a.json", "b.json"]), "melee with two files")
    return problems, 5


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    mode, brigade, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    checks = {"exact-paths": exact_paths, "bad-json": bad_json, "shape": shape}
    if mode == "usage":
        problems, count = usage(brigade)
    elif mode in checks and len(rest) == 1:
        problems, count = checks[mode](brigade, rest[0])
    else:
        print(__doc__)
        sys.exit(2)
    for problem in problems:
        print("FAIL " + problem)
    print(f"{mode}: {count} checked, {len(problems)} problems")
    sys.exit(1 if problems or count == 0 else 0)


if __name__ == "__main__":
    main()
