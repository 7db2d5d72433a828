"""Reads the console launcher's legacy XML report; prints counts, failing tests with their first message line,
and the closing line 'N passed, N failed, N skipped'. Exits 1 if a test failed or errored, or none ran."""
import glob, os, sys
import xml.etree.ElementTree as ET

reports, elapsed = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "?")
passed = failed = skipped = 0
failures = []
for f in sorted(glob.glob(os.path.join(reports, "TEST-*.xml"))):
    try:
        root = ET.parse(f).getroot()
    except ET.ParseError:   # cut short: the launcher was killed while writing it
        continue
    for case in root.iter("testcase"):
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        name = f"{case.get('classname')}#{case.get('name')}"
        if bad is not None:
            failed += 1
            msg = " ".join((bad.get("message") or bad.text or "").split())
            failures.append((name, bad.get("type") or "", msg if len(msg) <= 300 else msg[:180] + " ... " + msg[-110:]))
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
incomplete = ""
if passed + failed + skipped == 0 and len(sys.argv) > 3 and os.path.exists(sys.argv[3]):
    # No usable XML report: the launcher was killed. Count what its test feed says had finished.
    incomplete = " (INCOMPLETE: the launcher was killed; counted from its test feed)"
    for line in open(sys.argv[3], encoding="utf-8", errors="replace"):
        if not line.startswith("JUnit Jupiter > ") or " :: " not in line:
            continue
        name, result = line.rstrip("\n").rsplit(" :: ", 1)
        result = result.split()[0] if result.split() else ""
        name = name[len("JUnit Jupiter > "):]
        if result == "SUCCESSFUL":
            passed += 1
        elif result == "FAILED":
            failed += 1
            failures.append((name, "", "see the log"))
        elif result in ("ABORTED", "SKIPPED"):
            skipped += 1
    failed += 1   # the run itself
    failures.append(("(run)", "", "killed before it finished"))
print(f"== {passed + failed + skipped} tests in {elapsed} s: {passed} passed, {failed} failed, {skipped} skipped =={incomplete}")
for name, kind, msg in failures:
    print(f"FAILED {name}: {kind.rsplit('.', 1)[-1]}: {msg}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed + failed == 0 else 0)
