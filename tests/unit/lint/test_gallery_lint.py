"""The rules over this reference's gallery, whose scripts show each mistake on purpose and then
its fixes: a line tagged ``# fixed`` or ``# fix: <cause>`` is never flagged, by any rule (the
fixes the reference shows pass its own linter), and each rule flags its own entry's script,
unless that script does not show the rule's pattern (listed below, with the reason)."""

import pytest

from autograd_errors.lint.checker import check_source
from autograd_errors.lint.registry import OPINIONATED, active
from autograd_errors.verification import gallery

SCRIPTS = gallery.scripts()
BY_ENTRY = {script.entry_id: script for script in SCRIPTS}
#: Rules whose entry's script does not show their pattern.
NOT_SHOWN = {
    "AE102": "backward-twice.py shows the error, not retain_graph=True added to a loop to hide it",
    "AE502": "grad-is-none.py shows no zero_grad() between backward() and step()",
    "AE503": "anomaly-cost.py switches anomaly mode off again, which is what the rule asks",
}


def findings(script):
    with open(script.path, "rb") as handle:
        source = handle.read()
    return check_source(source, script.path, select=["AE", OPINIONATED])


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda script: script.entry_id)
def test_no_fix_is_flagged(script):
    fixes = {
        number
        for number, tag, _ in gallery.line_tags(script.path)
        if tag == "fixed" or tag.startswith(f"{gallery.FIX_TAG}:")
    }
    flagged = [f.text() for f in findings(script) if f.line in fixes]
    assert flagged == []


@pytest.mark.parametrize("rule", list(active()), ids=lambda rule: rule.code)
def test_each_rule_flags_its_entrys_script(rule):
    script = BY_ENTRY[rule.entry]
    codes = {finding.code for finding in findings(script)}
    if rule.code in NOT_SHOWN:
        assert rule.code not in codes, f"{rule.code} now flags {script}: drop its exemption"
    else:
        assert rule.code in codes, f"{rule.code} flags nothing in {script}"
