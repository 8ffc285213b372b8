"""Masterminds semver v3.5.0 behaviour (the library behind Helm 3.22 and Sprig).

The tables are ported from Masterminds' own version_test.go and constraints_test.go
(they are the specification); where those only said "error", the exact Go error text
was taken from the Go library and is asserted here. The conformance tests at the end
ask the real ``helm`` binary (``semverCompare`` and ``semver``) the same questions.
"""
from __future__ import annotations

import itertools
import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from helm_core import errors
from helm_core.golib import versions
from helm_core.golib.versions import Constraints, Version, VersionError


def _ids(cases: list[tuple[object, ...]], width: int = 2) -> list[str]:
    return [" | ".join(repr(x) for x in case[:width]) for case in cases]


# version_test.go TestStrictNewVersion: (text, String() or None, Go error or None).
STRICT_CASES = [
    ('1.2.3', '1.2.3', None),
    ('1.2.3-alpha.01', None, 'version segment starts with 0'),
    ('1.2.3+test.01', '1.2.3+test.01', None),
    ('1.2.3-alpha.-1', '1.2.3-alpha.-1', None),
    ('v1.2.3', None, 'invalid characters in version'),
    ('1.0', None, 'invalid semantic version'),
    ('v1.0', None, 'invalid semantic version'),
    ('1', None, 'invalid semantic version'),
    ('v1', None, 'invalid semantic version'),
    ('1.2', None, 'invalid semantic version'),
    ('1.2.beta', None, 'invalid characters in version'),
    ('v1.2.beta', None, 'invalid characters in version'),
    ('foo', None, 'invalid semantic version'),
    ('1.2-5', None, 'invalid semantic version'),
    ('v1.2-5', None, 'invalid semantic version'),
    ('1.2-beta.5', None, 'invalid characters in version'),
    ('v1.2-beta.5', None, 'invalid characters in version'),
    ('\n1.2', None, 'invalid semantic version'),
    ('\nv1.2', None, 'invalid semantic version'),
    ('1.2.0-x.Y.0+metadata', '1.2.0-x.Y.0+metadata', None),
    ('v1.2.0-x.Y.0+metadata', None, 'invalid characters in version'),
    ('1.2.0-x.Y.0+metadata-width-hypen', '1.2.0-x.Y.0+metadata-width-hypen', None),
    ('v1.2.0-x.Y.0+metadata-width-hypen', None, 'invalid characters in version'),
    ('1.2.3-rc1-with-hypen', '1.2.3-rc1-with-hypen', None),
    ('1.2.3-0abc123', '1.2.3-0abc123', None),
    ('1.2.3-beta.01', None, 'version segment starts with 0'),
    ('v1.2.3-rc1-with-hypen', None, 'invalid characters in version'),
    ('1.2.3.4', None, 'invalid characters in version'),
    ('v1.2.3.4', None, 'invalid characters in version'),
    ('1.2.2147483648', '1.2.2147483648', None),
    ('1.2147483648.3', '1.2147483648.3', None),
    ('2147483648.3.0', '2147483648.3.0', None),
    ('20221209-update-renovatejson-v4', None, 'invalid semantic version'),
    ('1.1.2+.123', None, 'invalid metadata string'),
    ('1.0.0-alpha_beta', None, 'invalid prerelease string'),
    ('1.0.0-alpha..', None, 'invalid prerelease string'),
    ('1.0.0-alpha..1', None, 'invalid prerelease string'),
    ('01.1.1', None, 'version segment starts with 0'),
    ('1.01.1', None, 'version segment starts with 0'),
    ('1.1.01', None, 'version segment starts with 0'),
    ('9.8.7+meta+meta', None, 'invalid metadata string'),
    ('1.2.31----RC-SNAPSHOT.12.09.1--.12+788', None, 'version segment starts with 0'),
    ('1.2.3-0123', None, 'version segment starts with 0'),
    ('1.2.3-0123.0123', None, 'version segment starts with 0'),
    ('+invalid', None, 'invalid semantic version'),
    ('-invalid', None, 'invalid semantic version'),
    ('-invalid.01', None, 'invalid semantic version'),
    ('alpha+beta', None, 'invalid semantic version'),
    ('1.2.3-alpha_beta+foo', None, 'invalid prerelease string'),
    ('1.0.0-alpha..1', None, 'invalid prerelease string'),
]

# version_test.go TestNewVersion, default coercing mode.
LOOSE_CASES = [
    ('1.2.3', '1.2.3', None),
    ('1.2.3-alpha.01', None, 'version segment starts with 0'),
    ('1.2.3+test.01', '1.2.3+test.01', None),
    ('1.2.3-alpha.-1', '1.2.3-alpha.-1', None),
    ('v1.2.3', '1.2.3', None),
    ('1.0', '1.0.0', None),
    ('v1.0', '1.0.0', None),
    ('1', '1.0.0', None),
    ('v1', '1.0.0', None),
    ('1.2.beta', None, 'invalid semantic version'),
    ('v1.2.beta', None, 'invalid semantic version'),
    ('foo', None, 'invalid semantic version'),
    ('1.2-5', '1.2.0-5', None),
    ('v1.2-5', '1.2.0-5', None),
    ('1.2-beta.5', '1.2.0-beta.5', None),
    ('v1.2-beta.5', '1.2.0-beta.5', None),
    ('\n1.2', None, 'invalid semantic version'),
    ('\nv1.2', None, 'invalid semantic version'),
    ('1.2.0-x.Y.0+metadata', '1.2.0-x.Y.0+metadata', None),
    ('v1.2.0-x.Y.0+metadata', '1.2.0-x.Y.0+metadata', None),
    ('1.2.0-x.Y.0+metadata-width-hypen', '1.2.0-x.Y.0+metadata-width-hypen', None),
    ('v1.2.0-x.Y.0+metadata-width-hypen', '1.2.0-x.Y.0+metadata-width-hypen', None),
    ('1.2.3-rc1-with-hypen', '1.2.3-rc1-with-hypen', None),
    ('v1.2.3-rc1-with-hypen', '1.2.3-rc1-with-hypen', None),
    ('1.2.3-0abc123', '1.2.3-0abc123', None),
    ('1.2.3-beta.01', None, 'version segment starts with 0'),
    ('1.2.3.4', None, 'invalid semantic version'),
    ('v1.2.3.4', None, 'invalid semantic version'),
    ('1.2.2147483648', '1.2.2147483648', None),
    ('1.2147483648.3', '1.2147483648.3', None),
    ('2147483648.3.0', '2147483648.3.0', None),
    ('12.3.4.1234', None, 'invalid semantic version'),
    ('12.23.4.1234', None, 'invalid semantic version'),
    ('12.3.34.1234', None, 'invalid semantic version'),
    ('20221209-update-renovatejson-v4', '20221209.0.0-update-renovatejson-v4', None),
    ('1.1.2+.123', None, 'invalid semantic version'),
    ('1.0.0-alpha_beta', None, 'invalid semantic version'),
    ('1.0.0-alpha..', None, 'invalid semantic version'),
    ('1.0.0-alpha..1', None, 'invalid semantic version'),
    ('9.8.7+meta+meta', None, 'invalid semantic version'),
    ('1.2.31----RC-SNAPSHOT.12.09.1--.12+788', None, 'version segment starts with 0'),
    ('01.1.1', '1.1.1', None),
    ('1.01.1', '1.1.1', None),
    ('1.1.01', '1.1.1', None),
]

# version_test.go TestCompare, TestLessThan(Equal), TestGreaterThan(Equal) as Compare results.
COMPARE_CASES = [
    ('1.2.3', '1.5.1', -1),
    ('2.2.3', '1.5.1', 1),
    ('2.2.3', '2.2.2', 1),
    ('3.2-beta', '3.2-beta', 0),
    ('1.3', '1.1.4', 1),
    ('4.2', '4.2-beta', 1),
    ('4.2-beta', '4.2', -1),
    ('4.2-alpha', '4.2-beta', -1),
    ('4.2-alpha', '4.2-alpha', 0),
    ('4.2-beta.2', '4.2-beta.1', 1),
    ('4.2-beta2', '4.2-beta1', 1),
    ('4.2-beta', '4.2-beta.2', -1),
    ('4.2-beta', '4.2-beta.foo', -1),
    ('4.2-beta.2', '4.2-beta', 1),
    ('4.2-beta.foo', '4.2-beta', 1),
    ('1.2+bar', '1.2+baz', 0),
    ('1.0.0-beta.4', '1.0.0-beta.-2', -1),
    ('1.0.0-beta.-2', '1.0.0-beta.-3', -1),
    ('1.0.0-beta.-3', '1.0.0-beta.5', 1),
    ('1.5.1', '1.5.1', 0),
    ('3.2.0-beta.1', '3.2.0-beta.5', -1),
    ('3.2-beta.4', '3.2-beta.2', 1),
    ('7.43.0-SNAPSHOT.99', '7.43.0-SNAPSHOT.103', -1),
    ('7.43.0-SNAPSHOT.FOO', '7.43.0-SNAPSHOT.103', 1),
    ('7.43.0-SNAPSHOT.99', '7.43.0-SNAPSHOT.BAR', -1),
]

# constraints_test.go TestConstraintCheck (its three "" rows are not valid NewConstraint input).
CONSTRAINT_CHECK_CASES = [
    ('=2.0.0', '1.2.3', False),
    ('=2.0.0', '2.0.0', True),
    ('=2.0', '1.2.3', False),
    ('=2.0', '2.0.0', True),
    ('=2.0', '2.0.1', True),
    ('4.1', '4.1.0', True),
    ('!=4.1.0', '4.1.0', False),
    ('!=4.1.0', '4.1.1', True),
    ('!=4.1', '4.1.0', False),
    ('!=4.1', '4.1.1', False),
    ('!=4.1', '5.1.0-alpha.1', False),
    ('!=4.1.0', '5.1.0-alpha.1', False),
    ('!=4.1-alpha', '4.1.0', True),
    ('!=4.1', '5.1.0', True),
    ('<11', '0.1.0', True),
    ('<11', '11.1.0', False),
    ('<1.1', '0.1.0', True),
    ('<1.1', '1.1.0', False),
    ('<1.1', '1.1.1', False),
    ('<=11', '1.2.3', True),
    ('<=11', '12.2.3', False),
    ('<=11', '11.2.3', True),
    ('<=1.1', '1.2.3', False),
    ('<=1.1', '0.1.0', True),
    ('<=1.1', '1.1.0', True),
    ('<=1.1', '1.1.1', True),
    ('>1.1', '4.1.0', True),
    ('>1.1', '1.1.0', False),
    ('>0', '0', False),
    ('>0', '1', True),
    ('>0', '0.0.1-alpha', False),
    ('>0.0', '0.0.1-alpha', False),
    ('>0-0', '0.0.1-alpha', False),
    ('>0.0-0', '0.0.1-alpha', False),
    ('>0', '0.0.0-alpha', False),
    ('>0-0', '0.0.0-alpha', False),
    ('>0.0.0-0', '0.0.0-alpha', True),
    ('>1.2.3-alpha.1', '1.2.3-alpha.2', True),
    ('>1.2.3-alpha.1', '1.3.3-alpha.2', True),
    ('>11', '11.1.0', False),
    ('>11.1', '11.1.0', False),
    ('>11.1', '11.1.1', False),
    ('>11.1', '11.2.1', True),
    ('>=11', '11.1.2', True),
    ('>=11.1', '11.1.2', True),
    ('>=11.1', '11.0.2', False),
    ('>=1.1', '4.1.0', True),
    ('>=1.1', '1.1.0', True),
    ('>=1.1', '0.0.9', False),
    ('>=0', '0.0.1-alpha', False),
    ('>=0.0', '0.0.1-alpha', False),
    ('>=0-0', '0.0.1-alpha', True),
    ('>=0.0-0', '0.0.1-alpha', True),
    ('>=0', '0.0.0-alpha', False),
    ('>=0-0', '0.0.0-alpha', True),
    ('>=0.0.0-0', '0.0.0-alpha', True),
    ('>=0.0.0-0', '1.2.3', True),
    ('>=0.0.0-0', '3.4.5-beta.1', True),
    ('<0', '0.0.0-alpha', False),
    ('<0-z', '0.0.0-alpha', True),
    ('>=0', '0', True),
    ('=0', '1', False),
    ('*', '1', True),
    ('*', '4.5.6', True),
    ('*', '1.2.3-alpha.1', False),
    ('*-0', '1.2.3-alpha.1', True),
    ('2.*', '1', False),
    ('2.*', '3.4.5', False),
    ('2.*', '2.1.1', True),
    ('2.1.*', '2.1.1', True),
    ('2.1.*', '2.2.1', False),
    ('2', '1', False),
    ('2', '3.4.5', False),
    ('2', '2.1.1', True),
    ('2.1', '2.1.1', True),
    ('2.1', '2.2.1', False),
    ('~1.2.3', '1.2.4', True),
    ('~1.2.3', '1.3.4', False),
    ('~1.2', '1.2.4', True),
    ('~1.2', '1.3.4', False),
    ('~1', '1.2.4', True),
    ('~1', '2.3.4', False),
    ('~0.2.3', '0.2.5', True),
    ('~0.2.3', '0.3.5', False),
    ('~1.2.3-beta.2', '1.2.3-beta.4', True),
    ('~1.2.3-beta.2', '1.2.4-beta.2', True),
    ('~1.2.3-beta.2', '1.3.4-beta.2', False),
    ('^1.2.3', '1.8.9', True),
    ('^1.2.3', '2.8.9', False),
    ('^1.2.3', '1.2.1', False),
    ('^1.1.0', '2.1.0', False),
    ('^1.2.0', '2.2.1', False),
    ('^1.2.0', '1.2.1-alpha.1', False),
    ('^1.2.0-alpha.0', '1.2.1-alpha.1', True),
    ('^1.2.0-alpha.0', '1.2.1-alpha.0', True),
    ('^1.2.0-alpha.2', '1.2.0-alpha.1', False),
    ('^1.2', '1.8.9', True),
    ('^1.2', '2.8.9', False),
    ('^1', '1.8.9', True),
    ('^1', '2.8.9', False),
    ('^0.2.3', '0.2.5', True),
    ('^0.2.3', '0.5.6', False),
    ('^0.2', '0.2.5', True),
    ('^0.2', '0.5.6', False),
    ('^0.0.3', '0.0.3', True),
    ('^0.0.3', '0.0.4', False),
    ('^0.0', '0.0.3', True),
    ('^0.0', '0.1.4', False),
    ('^0.0', '1.0.4', False),
    ('^0', '0.2.3', True),
    ('^0', '1.1.4', False),
    ('^0.2.3-beta.2', '0.2.3-beta.4', True),
    ('^0.2.3-beta.2', '0.2.4-beta.2', True),
    ('^0.2.3-beta.2', '0.3.4-beta.2', False),
    ('^0.2.3-beta.2', '0.2.3-beta.2', True),
]

# constraints_test.go TestNewConstraint: (text, OR groups, terms in group 1, Go error or None).
NEW_CONSTRAINT_CASES = [
    ('>= 1.1', 1, 1, None),
    ('>40.50.60, < 50.70', 1, 2, None),
    ('2.0', 1, 1, None),
    ('v2.3.5-20161202202307-sha.e8fc5e5', 1, 1, None),
    ('v1.2.3-0abc', 1, 1, None),
    ('v1.2.3-beta.01', 1, 1, 'constraint parser error'),
    ('>= bar', 0, 0, 'improper constraint: ">= bar"'),
    ('BAR >= 1.2.3', 0, 0, 'improper constraint: "BAR >= 1.2.3"'),
    ('>= 1.2.3 < 2.0', 1, 2, None),
    ('>= 1.2.3 < 2.0 || => 3.0 < 4', 2, 2, None),
    ('>= 1.2.3, < 2.0', 1, 2, None),
    ('>= 1.2.3, < 2.0 || => 3.0, < 4', 2, 2, None),
    ('3 - 4 || => 3.0, < 4', 2, 2, None),
    ('12.3.4.1234', 0, 0, 'improper constraint: "12.3.4.1234"'),
    ('12.23.4.1234', 0, 0, 'improper constraint: "12.23.4.1234"'),
    ('12.3.34.1234', 0, 0, 'improper constraint: "12.3.34.1234"'),
    ('12.3.34 ~1.2.3', 1, 2, None),
    ('12.3.34~ 1.2.3', 0, 0, 'improper constraint: "12.3.34~ 1.2.3"'),
    ('1.0.0 - 2.0.0, <=2.0.0', 1, 3, None),
]

# constraints_test.go TestConstraintsCheck.
CONSTRAINTS_CHECK_CASES = [
    ('*', '1.2.3', True),
    ('~0.0.0', '1.2.3', True),
    ('0.x.x', '1.2.3', False),
    ('0.0.x', '1.2.3', False),
    ('0.0.0', '1.2.3', False),
    ('*', '1.2.3', True),
    ('^0.0.0', '1.2.3', False),
    ('= 2.0', '1.2.3', False),
    ('= 2.0', '2.0.0', True),
    ('4.1', '4.1.0', True),
    ('4.1.x', '4.1.3', True),
    ('1.x', '1.4', True),
    ('!=4.1', '4.1.0', False),
    ('!=4.1-alpha', '4.1.0-alpha', False),
    ('!=4.1-alpha', '4.1.1-alpha', False),
    ('!=4.1-alpha', '4.1.0', True),
    ('!=4.1', '5.1.0', True),
    ('!=4.x', '5.1.0', True),
    ('!=4.x', '4.1.0', False),
    ('!=4.1.x', '4.2.0', True),
    ('!=4.2.x', '4.2.3', False),
    ('>1.1', '4.1.0', True),
    ('>1.1', '1.1.0', False),
    ('<1.1', '0.1.0', True),
    ('<1.1', '1.1.0', False),
    ('<1.1', '1.1.1', False),
    ('<1.x', '1.1.1', False),
    ('<1.x', '0.1.1', True),
    ('<1.x', '2.0.0', False),
    ('<1.1.x', '1.2.1', False),
    ('<1.1.x', '1.1.500', False),
    ('<1.1.x', '1.0.500', True),
    ('<1.2.x', '1.1.1', True),
    ('>=1.1', '4.1.0', True),
    ('>=1.1', '4.1.0-beta', False),
    ('>=1.1', '1.1.0', True),
    ('>=1.1', '0.0.9', False),
    ('<=1.1', '0.1.0', True),
    ('<=1.1', '0.1.0-alpha', False),
    ('<=1.1-a', '0.1.0-alpha', True),
    ('<=1.1', '1.1.0', True),
    ('<=1.x', '1.1.0', True),
    ('<=2.x', '3.0.0', False),
    ('<=1.1', '1.1.1', True),
    ('<=1.1.x', '1.2.500', False),
    ('<=4.5', '3.4.0', True),
    ('<=4.5', '3.7.0', True),
    ('<=4.5', '4.6.3', False),
    ('>1.1, <2', '1.1.1', False),
    ('>1.1, <2', '1.2.1', True),
    ('>1.1, <3', '4.3.2', False),
    ('>=1.1, <2, !=1.2.3', '1.2.3', False),
    ('>1.1 <2', '1.1.1', False),
    ('>1.1 <2', '1.2.1', True),
    ('>1.1    <3', '4.3.2', False),
    ('>=1.1    <2    !=1.2.3', '1.2.3', False),
    ('>=1.1, <2, !=1.2.3 || > 3', '4.1.2', True),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.1.2', False),
    ('>=1.1, <2, !=1.2.3 || >= 3', '3.0.0', True),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.0.0', False),
    ('>=1.1, <2, !=1.2.3 || > 3', '1.2.3', False),
    ('>=1.1 <2 !=1.2.3', '1.2.3', False),
    ('>=1.1 <2 !=1.2.3 || > 3', '4.1.2', True),
    ('>=1.1 <2 !=1.2.3 || > 3', '3.1.2', False),
    ('>=1.1 <2 !=1.2.3 || >= 3', '3.0.0', True),
    ('>=1.1 <2 !=1.2.3 || > 3', '3.0.0', False),
    ('>=1.1 <2 !=1.2.3 || > 3', '1.2.3', False),
    ('> 1.1, <     2', '1.1.1', False),
    ('>   1.1, <2', '1.2.1', True),
    ('>1.1, <  3', '4.3.2', False),
    ('>= 1.1, <     2, !=1.2.3', '1.2.3', False),
    ('> 1.1 < 2', '1.1.1', False),
    ('>1.1 < 2', '1.2.1', True),
    ('> 1.1    <3', '4.3.2', False),
    ('>=1.1    < 2    != 1.2.3', '1.2.3', False),
    ('>= 1.1, <2, !=1.2.3 || > 3', '4.1.2', True),
    ('>= 1.1, <2, != 1.2.3 || > 3', '3.1.2', False),
    ('>= 1.1, <2, != 1.2.3 || >= 3', '3.0.0', True),
    ('>= 1.1, <2, !=1.2.3 || > 3', '3.0.0', False),
    ('>= 1.1, <2, !=1.2.3 || > 3', '1.2.3', False),
    ('>= 1.1 <2 != 1.2.3', '1.2.3', False),
    ('>= 1.1 <2 != 1.2.3 || > 3', '4.1.2', True),
    ('>= 1.1 <2 != 1.2.3 || > 3', '3.1.2', False),
    ('>= 1.1 <2 != 1.2.3 || >= 3', '3.0.0', True),
    ('>= 1.1 < 2 !=1.2.3 || > 3', '3.0.0', False),
    ('>=1.1 < 2 !=1.2.3 || > 3', '1.2.3', False),
    ('>= 1.0.0  <= 2.0.0-beta', '1.0.1-beta', True),
    ('>= 1.0.0  <= 2.0.0-beta', '1.0.1', True),
    ('>= 1.0.0  <= 2.0.0-beta', '3.0.0', False),
    ('>= 1.0.0  <= 2.0.0-beta || > 3', '1.0.1-beta', True),
    ('>= 1.0.0  <= 2.0.0-beta || > 3', '3.0.1-beta', False),
    ('>= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3', '1.0.1-beta', True),
    ('>= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3', '1.0.1-beta', False),
    ('>= 1.0.0-0  <= 2.0.0', '1.0.1-beta', True),
    ('1.1 - 2', '1.1.1', True),
    ('1.5.0 - 4.5', '3.7.0', True),
    ('1.1-3', '4.3.2', False),
    ('^1.1', '1.1.1', True),
    ('^1.1', '4.3.2', False),
    ('^1.x', '1.1.1', True),
    ('^2.x', '1.1.1', False),
    ('^1.x', '2.1.1', False),
    ('^1.x', '1.1.1-beta1', False),
    ('^1.1.2-alpha', '1.2.1-beta1', True),
    ('^1.2.x-alpha', '1.1.1-beta1', False),
    ('^0.0.1', '0.0.1', True),
    ('^0.0.1', '0.3.1', False),
    ('~*', '2.1.1', True),
    ('~1', '2.1.1', False),
    ('~1', '1.3.5', True),
    ('~1', '1.4', True),
    ('~1.x', '2.1.1', False),
    ('~1.x', '1.3.5', True),
    ('~1.x', '1.4', True),
    ('~1.1', '1.1.1', True),
    ('~1.1', '1.1.1-alpha', False),
    ('~1.1-alpha', '1.1.1-beta', True),
    ('~1.1.1-beta', '1.1.1-alpha', False),
    ('~1.1.1-beta', '1.1.1', True),
    ('~1.2.3', '1.2.5', True),
    ('~1.2.3', '1.2.2', False),
    ('~1.2.3', '1.3.2', False),
    ('~1.1', '1.2.3', False),
    ('~1.3', '2.4.5', False),
    ('1.0.0 - 2.0.0 <=2.0.0', '1.5.0', True),
    ('1.0.0 - 2.0.0, <=2.0.0', '1.5.0', True),
]

# constraints_test.go TestConstraintsCheckIncludePrerelease.
CONSTRAINTS_CHECK_INCLUDE_PRE_CASES = [
    ('>=1.1', '4.1.0-beta', True),
    ('>1.1', '4.1.0-beta', True),
    ('<=1.1', '0.1.0-alpha', True),
    ('<1.1', '0.1.0-alpha', True),
    ('^1.x', '1.1.1-beta1', True),
    ('~1.1', '1.1.1-alpha', True),
    ('*', '1.2.3-alpha', True),
    ('= 2.0', '2.0.1-beta', True),
    ('*', '1.2.3', True),
    ('~0.0.0', '1.2.3', True),
    ('0.x.x', '1.2.3', False),
    ('0.0.x', '1.2.3', False),
    ('0.0.0', '1.2.3', False),
    ('*', '1.2.3', True),
    ('^0.0.0', '1.2.3', False),
    ('= 2.0', '1.2.3', False),
    ('= 2.0', '2.0.0', True),
    ('4.1', '4.1.0', True),
    ('4.1.x', '4.1.3', True),
    ('1.x', '1.4', True),
    ('!=4.1', '4.1.0', False),
    ('!=4.1-alpha', '4.1.0-alpha', False),
    ('!=4.1-alpha', '4.1.1-alpha', False),
    ('!=4.1-alpha', '4.1.0', True),
    ('!=4.1', '5.1.0', True),
    ('!=4.x', '5.1.0', True),
    ('!=4.x', '4.1.0', False),
    ('!=4.1.x', '4.2.0', True),
    ('!=4.2.x', '4.2.3', False),
    ('>1.1', '4.1.0', True),
    ('>1.1', '1.1.0', False),
    ('<1.1', '0.1.0', True),
    ('<1.1', '1.1.0', False),
    ('<1.1', '1.1.1', False),
    ('<1.x', '1.1.1', False),
    ('<1.x', '0.1.1', True),
    ('<1.x', '2.0.0', False),
    ('<1.1.x', '1.2.1', False),
    ('<1.1.x', '1.1.500', False),
    ('<1.1.x', '1.0.500', True),
    ('<1.2.x', '1.1.1', True),
    ('>=1.1', '4.1.0', True),
    ('>=1.1', '1.1.0', True),
    ('>=1.1', '0.0.9', False),
    ('<=1.1', '0.1.0', True),
    ('<=1.1-a', '0.1.0-alpha', True),
    ('<=1.1', '1.1.0', True),
    ('<=1.x', '1.1.0', True),
    ('<=2.x', '3.0.0', False),
    ('<=1.1', '1.1.1', True),
    ('<=1.1.x', '1.2.500', False),
    ('<=4.5', '3.4.0', True),
    ('<=4.5', '3.7.0', True),
    ('<=4.5', '4.6.3', False),
    ('>1.1, <2', '1.1.1', False),
    ('>1.1, <2', '1.2.1', True),
    ('>1.1, <3', '4.3.2', False),
    ('>=1.1, <2, !=1.2.3', '1.2.3', False),
    ('>1.1 <2', '1.1.1', False),
    ('>1.1 <2', '1.2.1', True),
    ('>1.1    <3', '4.3.2', False),
    ('>=1.1    <2    !=1.2.3', '1.2.3', False),
    ('>=1.1, <2, !=1.2.3 || > 3', '4.1.2', True),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.1.2', False),
    ('>=1.1, <2, !=1.2.3 || >= 3', '3.0.0', True),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.0.0', False),
    ('>=1.1, <2, !=1.2.3 || > 3', '1.2.3', False),
    ('>=1.1 <2 !=1.2.3', '1.2.3', False),
    ('>=1.1 <2 !=1.2.3 || > 3', '4.1.2', True),
    ('>=1.1 <2 !=1.2.3 || > 3', '3.1.2', False),
    ('>=1.1 <2 !=1.2.3 || >= 3', '3.0.0', True),
    ('>=1.1 <2 !=1.2.3 || > 3', '3.0.0', False),
    ('>=1.1 <2 !=1.2.3 || > 3', '1.2.3', False),
    ('> 1.1, <     2', '1.1.1', False),
    ('>   1.1, <2', '1.2.1', True),
    ('>1.1, <  3', '4.3.2', False),
    ('>= 1.1, <     2, !=1.2.3', '1.2.3', False),
    ('> 1.1 < 2', '1.1.1', False),
    ('>1.1 < 2', '1.2.1', True),
    ('> 1.1    <3', '4.3.2', False),
    ('>=1.1    < 2    != 1.2.3', '1.2.3', False),
    ('>= 1.1, <2, !=1.2.3 || > 3', '4.1.2', True),
    ('>= 1.1, <2, != 1.2.3 || > 3', '3.1.2', False),
    ('>= 1.1, <2, != 1.2.3 || >= 3', '3.0.0', True),
    ('>= 1.1, <2, !=1.2.3 || > 3', '3.0.0', False),
    ('>= 1.1, <2, !=1.2.3 || > 3', '1.2.3', False),
    ('>= 1.1 <2 != 1.2.3', '1.2.3', False),
    ('>= 1.1 <2 != 1.2.3 || > 3', '4.1.2', True),
    ('>= 1.1 <2 != 1.2.3 || > 3', '3.1.2', False),
    ('>= 1.1 <2 != 1.2.3 || >= 3', '3.0.0', True),
    ('>= 1.1 < 2 !=1.2.3 || > 3', '3.0.0', False),
    ('>=1.1 < 2 !=1.2.3 || > 3', '1.2.3', False),
    ('>= 1.0.0  <= 2.0.0-beta', '1.0.1-beta', True),
    ('>= 1.0.0  <= 2.0.0-beta', '1.0.1', True),
    ('>= 1.0.0  <= 2.0.0-beta', '3.0.0', False),
    ('>= 1.0.0  <= 2.0.0-beta || > 3', '1.0.1-beta', True),
    ('>= 1.0.0  <= 2.0.0-beta || > 3', '3.0.1-beta', False),
    ('>= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3', '1.0.1-beta', True),
    ('>= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3', '1.0.1-beta', False),
    ('>= 1.0.0-0  <= 2.0.0', '1.0.1-beta', True),
    ('1.1 - 2', '1.1.1', True),
    ('1.5.0 - 4.5', '3.7.0', True),
    ('1.1-3', '4.3.2', False),
    ('^1.1', '1.1.1', True),
    ('^1.1', '4.3.2', False),
    ('^1.x', '1.1.1', True),
    ('^2.x', '1.1.1', False),
    ('^1.x', '2.1.1', False),
    ('^1.1.2-alpha', '1.2.1-beta1', True),
    ('^1.2.x-alpha', '1.1.1-beta1', False),
    ('^0.0.1', '0.0.1', True),
    ('^0.0.1', '0.3.1', False),
    ('~*', '2.1.1', True),
    ('~1', '2.1.1', False),
    ('~1', '1.3.5', True),
    ('~1', '1.4', True),
    ('~1.x', '2.1.1', False),
    ('~1.x', '1.3.5', True),
    ('~1.x', '1.4', True),
    ('~1.1', '1.1.1', True),
    ('~1.1-alpha', '1.1.1-beta', True),
    ('~1.1.1-beta', '1.1.1-alpha', False),
    ('~1.1.1-beta', '1.1.1', True),
    ('~1.2.3', '1.2.5', True),
    ('~1.2.3', '1.2.2', False),
    ('~1.2.3', '1.3.2', False),
    ('~1.1', '1.2.3', False),
    ('~1.3', '2.4.5', False),
    ('1.0.0 - 2.0.0 <=2.0.0', '1.5.0', True),
    ('1.0.0 - 2.0.0, <=2.0.0', '1.5.0', True),
]

# constraints_test.go TestConstraintsValidate, with Go's full list of reasons.
VALIDATE_CASES = [
    ('*', '1.2.3', []),
    ('~0.0.0', '1.2.3', []),
    ('= 2.0', '1.2.3', ['"1.2.3" is less than "2.0"']),
    ('= 2.0', '2.0.0', []),
    ('4.1', '4.1.0', []),
    ('4.1.x', '4.1.3', []),
    ('1.x', '1.4', []),
    ('!=4.1', '4.1.0', ['"4.1.0" is equal to "4.1"']),
    ('!=4.1', '5.1.0', []),
    ('!=4.x', '5.1.0', []),
    ('!=4.x', '4.1.0', ['"4.1.0" is equal to "4.x"']),
    ('!=4.1.x', '4.2.0', []),
    ('!=4.2.x', '4.2.3', ['"4.2.3" is equal to "4.2.x"']),
    ('>1.1', '4.1.0', []),
    ('>1.1', '1.1.0', ['"1.1.0" is less than or equal to "1.1"']),
    ('<1.1', '0.1.0', []),
    ('<1.1', '1.1.0', ['"1.1.0" is greater than or equal to "1.1"']),
    ('<1.1', '1.1.1', ['"1.1.1" is greater than or equal to "1.1"']),
    ('<1.x', '1.1.1', ['"1.1.1" is greater than or equal to "1.x"']),
    ('<2.x', '1.1.1', []),
    ('<1.x', '2.1.1', ['"2.1.1" is greater than or equal to "1.x"']),
    ('<1.1.x', '1.2.1', ['"1.2.1" is greater than or equal to "1.1.x"']),
    ('<1.1.x', '1.1.500', ['"1.1.500" is greater than or equal to "1.1.x"']),
    ('<1.2.x', '1.1.1', []),
    ('>=1.1', '4.1.0', []),
    ('>=1.1', '1.1.0', []),
    ('>=1.1', '0.0.9', ['"0.0.9" is less than "1.1"']),
    ('<=1.1', '0.1.0', []),
    ('<=1.1', '1.1.0', []),
    ('<=1.x', '1.1.0', []),
    ('<=2.x', '3.1.0', ['"3.1.0" is greater than "2.x"']),
    ('<=1.1', '1.1.1', []),
    ('<=1.1.x', '1.2.500', ['"1.2.500" is greater than "1.1.x"']),
    ('>1.1, <2', '1.1.1', ['"1.1.1" is less than or equal to "1.1"']),
    ('>1.1, <2', '1.2.1', []),
    ('>1.1, <3', '4.3.2', ['"4.3.2" is greater than or equal to "3"']),
    ('>=1.1, <2, !=1.2.3', '1.2.3', ['"1.2.3" is equal to "1.2.3"']),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.1.2', ['"3.1.2" is greater than or equal to "2"', '"3.1.2" is less than or equal to "3"']),
    ('>=1.1, <2, !=1.2.3 || > 3', '4.1.2', []),
    ('>=1.1, <2, !=1.2.3 || >= 3', '3.0.0', []),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.0.0', ['"3.0.0" is greater than or equal to "2"', '"3.0.0" is less than or equal to "3"']),
    ('>=1.1, <2, !=1.2.3 || > 3', '1.2.3', ['"1.2.3" is equal to "1.2.3"', '"1.2.3" is less than or equal to "3"']),
    ('1.1 - 2', '1.1.1', []),
    ('1.1-3', '4.3.2', ['"4.3.2" does not have same major version as "1.1-3"']),
    ('^1.1', '1.1.1', []),
    ('^1.1', '1.1.1-alpha', ['"1.1.1-alpha" is a prerelease version and the constraint is only looking for release versions']),
    ('^1.1.1-alpha', '1.1.1-beta', []),
    ('^1.1.1-beta', '1.1.1-alpha', ['"1.1.1-alpha" is less than "1.1.1-beta"']),
    ('^1.1', '4.3.2', ['"4.3.2" does not have same major version as "1.1"']),
    ('^1.x', '1.1.1', []),
    ('^2.x', '1.1.1', ['"1.1.1" is less than "2.x"']),
    ('^1.x', '2.1.1', ['"2.1.1" does not have same major version as "1.x"']),
    ('^0.0.1', '0.1.3', ['"0.1.3" does not have same minor version as "0.0.1"']),
    ('^0.0.1', '0.0.1', []),
    ('~*', '2.1.1', []),
    ('~1', '2.1.1', ['"2.1.1" does not have same major version as "1"']),
    ('~1', '1.3.5', []),
    ('~1', '1.3.5-beta', ['"1.3.5-beta" is a prerelease version and the constraint is only looking for release versions']),
    ('~1.x', '2.1.1', ['"2.1.1" does not have same major version as "1.x"']),
    ('~1.x', '1.3.5', []),
    ('~1.x', '1.3.5-beta', ['"1.3.5-beta" is a prerelease version and the constraint is only looking for release versions']),
    ('~1.3.6-alpha', '1.3.5-beta', ['"1.3.5-beta" is less than "1.3.6-alpha"']),
    ('~1.3.5-alpha', '1.3.5-beta', []),
    ('~1.3.5-beta', '1.3.5-alpha', ['"1.3.5-alpha" is less than "1.3.5-beta"']),
    ('~1.x', '1.4', []),
    ('~1.1', '1.1.1', []),
    ('~1.2.3', '1.2.5', []),
    ('~1.2.3', '1.2.2', ['"1.2.2" is less than "1.2.3"']),
    ('~1.2.3', '1.3.2', ['"1.3.2" does not have same major and minor version as "1.2.3"']),
    ('~1.1', '1.2.3', ['"1.2.3" does not have same major and minor version as "1.1"']),
    ('~1.3', '2.4.5', ['"2.4.5" does not have same major version as "1.3"']),
]

# constraints_test.go TestConstraintsValidate tests2: the first reason.
VALIDATE_FIRST_MESSAGE_CASES = [
    ('2.x', '1.2.3', '"1.2.3" is less than "2.x"'),
    ('2', '1.2.3', '"1.2.3" is less than "2"'),
    ('= 2.0', '1.2.3', '"1.2.3" is less than "2.0"'),
    ('!=4.1', '4.1.0', '"4.1.0" is equal to "4.1"'),
    ('!=4.x', '4.1.0', '"4.1.0" is equal to "4.x"'),
    ('!=4.2.x', '4.2.3', '"4.2.3" is equal to "4.2.x"'),
    ('>1.1', '1.1.0', '"1.1.0" is less than or equal to "1.1"'),
    ('<1.1', '1.1.0', '"1.1.0" is greater than or equal to "1.1"'),
    ('<1.1', '1.1.1', '"1.1.1" is greater than or equal to "1.1"'),
    ('<1.x', '2.1.1', '"2.1.1" is greater than or equal to "1.x"'),
    ('<1.1.x', '1.2.1', '"1.2.1" is greater than or equal to "1.1.x"'),
    ('>=1.1', '0.0.9', '"0.0.9" is less than "1.1"'),
    ('<=2.x', '3.1.0', '"3.1.0" is greater than "2.x"'),
    ('<=1.1', '1.2.1', '"1.2.1" is greater than "1.1"'),
    ('<=1.1.x', '1.2.500', '"1.2.500" is greater than "1.1.x"'),
    ('>1.1, <3', '4.3.2', '"4.3.2" is greater than or equal to "3"'),
    ('>=1.1, <2, !=1.2.3', '1.2.3', '"1.2.3" is equal to "1.2.3"'),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.0.0', '"3.0.0" is greater than or equal to "2"'),
    ('>=1.1, <2, !=1.2.3 || > 3', '1.2.3', '"1.2.3" is equal to "1.2.3"'),
    ('1.1 - 3', '4.3.2', '"4.3.2" is greater than "3"'),
    ('^1.1', '4.3.2', '"4.3.2" does not have same major version as "1.1"'),
    ('^1.12.7', '1.6.6', '"1.6.6" is less than "1.12.7"'),
    ('^2.x', '1.1.1', '"1.1.1" is less than "2.x"'),
    ('^1.x', '2.1.1', '"2.1.1" does not have same major version as "1.x"'),
    ('^0.2', '0.3.0', '"0.3.0" does not have same minor version as "0.2". Expected minor versions to match when constraint major version is 0'),
    ('^0.2', '0.1.1', '"0.1.1" is less than "0.2"'),
    ('^0.0.3', '0.1.1', '"0.1.1" does not have same minor version as "0.0.3"'),
    ('^0.0.3', '0.0.4', '"0.0.4" does not equal "0.0.3". Expect version and constraint to equal when major and minor versions are 0'),
    ('^0.0.3', '0.0.2', '"0.0.2" is less than "0.0.3"'),
    ('~1', '2.1.2', '"2.1.2" does not have same major version as "1"'),
    ('~1.x', '2.1.1', '"2.1.1" does not have same major version as "1.x"'),
    ('~1.2.3', '1.2.2', '"1.2.2" is less than "1.2.3"'),
    ('~1.2.3', '1.3.2', '"1.3.2" does not have same major and minor version as "1.2.3"'),
    ('~1.1', '1.2.3', '"1.2.3" does not have same major and minor version as "1.1"'),
    ('~1.3', '2.4.5', '"2.4.5" does not have same major version as "1.3"'),
    ('> 1.2.3', '1.2.3-beta.1', '"1.2.3-beta.1" is a prerelease version and the constraint is only looking for release versions'),
]

# constraints_test.go TestConstraintsValidateIncludePrerelease, with Go's reasons.
VALIDATE_INCLUDE_PRE_CASES = [
    ('^1.1', '1.1.1-alpha', []),
    ('~1', '1.3.5-beta', []),
    ('~1.x', '1.3.5-beta', []),
    ('>=1.1', '4.1.0-beta', []),
    ('>1.1', '4.1.0-beta', []),
    ('<=1.1', '0.1.0-alpha', []),
    ('<1.1', '0.1.0-alpha', []),
    ('^1.x', '1.1.1-beta1', []),
    ('~1.1', '1.1.1-alpha', []),
    ('*', '1.2.3-alpha', []),
    ('= 2.0', '2.0.1-beta', []),
    ('*', '1.2.3', []),
    ('~0.0.0', '1.2.3', []),
    ('= 2.0', '1.2.3', ['"1.2.3" is less than "2.0"']),
    ('= 2.0', '2.0.0', []),
    ('4.1', '4.1.0', []),
    ('4.1.x', '4.1.3', []),
    ('1.x', '1.4', []),
    ('!=4.1', '4.1.0', ['"4.1.0" is equal to "4.1"']),
    ('!=4.1', '5.1.0', []),
    ('!=4.x', '5.1.0', []),
    ('!=4.x', '4.1.0', ['"4.1.0" is equal to "4.x"']),
    ('!=4.1.x', '4.2.0', []),
    ('!=4.2.x', '4.2.3', ['"4.2.3" is equal to "4.2.x"']),
    ('>1.1', '4.1.0', []),
    ('>1.1', '1.1.0', ['"1.1.0" is less than or equal to "1.1"']),
    ('<1.1', '0.1.0', []),
    ('<1.1', '1.1.0', ['"1.1.0" is greater than or equal to "1.1"']),
    ('<1.1', '1.1.1', ['"1.1.1" is greater than or equal to "1.1"']),
    ('<1.x', '1.1.1', ['"1.1.1" is greater than or equal to "1.x"']),
    ('<2.x', '1.1.1', []),
    ('<1.x', '2.1.1', ['"2.1.1" is greater than or equal to "1.x"']),
    ('<1.1.x', '1.2.1', ['"1.2.1" is greater than or equal to "1.1.x"']),
    ('<1.1.x', '1.1.500', ['"1.1.500" is greater than or equal to "1.1.x"']),
    ('<1.2.x', '1.1.1', []),
    ('>=1.1', '4.1.0', []),
    ('>=1.1', '1.1.0', []),
    ('>=1.1', '0.0.9', ['"0.0.9" is less than "1.1"']),
    ('<=1.1', '0.1.0', []),
    ('<=1.1', '1.1.0', []),
    ('<=1.x', '1.1.0', []),
    ('<=2.x', '3.1.0', ['"3.1.0" is greater than "2.x"']),
    ('<=1.1', '1.1.1', []),
    ('<=1.1.x', '1.2.500', ['"1.2.500" is greater than "1.1.x"']),
    ('>1.1, <2', '1.1.1', ['"1.1.1" is less than or equal to "1.1"']),
    ('>1.1, <2', '1.2.1', []),
    ('>1.1, <3', '4.3.2', ['"4.3.2" is greater than or equal to "3"']),
    ('>=1.1, <2, !=1.2.3', '1.2.3', ['"1.2.3" is equal to "1.2.3"']),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.1.2', ['"3.1.2" is greater than or equal to "2"', '"3.1.2" is less than or equal to "3"']),
    ('>=1.1, <2, !=1.2.3 || > 3', '4.1.2', []),
    ('>=1.1, <2, !=1.2.3 || >= 3', '3.0.0', []),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.0.0', ['"3.0.0" is greater than or equal to "2"', '"3.0.0" is less than or equal to "3"']),
    ('>=1.1, <2, !=1.2.3 || > 3', '1.2.3', ['"1.2.3" is equal to "1.2.3"', '"1.2.3" is less than or equal to "3"']),
    ('1.1 - 2', '1.1.1', []),
    ('1.1-3', '4.3.2', ['"4.3.2" does not have same major version as "1.1-3"']),
    ('^1.1', '1.1.1', []),
    ('^1.1.1-alpha', '1.1.1-beta', []),
    ('^1.1.1-beta', '1.1.1-alpha', ['"1.1.1-alpha" is less than "1.1.1-beta"']),
    ('^1.1', '4.3.2', ['"4.3.2" does not have same major version as "1.1"']),
    ('^1.x', '1.1.1', []),
    ('^2.x', '1.1.1', ['"1.1.1" is less than "2.x"']),
    ('^1.x', '2.1.1', ['"2.1.1" does not have same major version as "1.x"']),
    ('^0.0.1', '0.1.3', ['"0.1.3" does not have same minor version as "0.0.1"']),
    ('^0.0.1', '0.0.1', []),
    ('~*', '2.1.1', []),
    ('~1', '2.1.1', ['"2.1.1" does not have same major version as "1"']),
    ('~1', '1.3.5', []),
    ('~1.x', '2.1.1', ['"2.1.1" does not have same major version as "1.x"']),
    ('~1.x', '1.3.5', []),
    ('~1.3.6-alpha', '1.3.5-beta', ['"1.3.5-beta" is less than "1.3.6-alpha"']),
    ('~1.3.5-alpha', '1.3.5-beta', []),
    ('~1.3.5-beta', '1.3.5-alpha', ['"1.3.5-alpha" is less than "1.3.5-beta"']),
    ('~1.x', '1.4', []),
    ('~1.1', '1.1.1', []),
    ('~1.2.3', '1.2.5', []),
    ('~1.2.3', '1.2.2', ['"1.2.2" is less than "1.2.3"']),
    ('~1.2.3', '1.3.2', ['"1.3.2" does not have same major and minor version as "1.2.3"']),
    ('~1.1', '1.2.3', ['"1.2.3" does not have same major and minor version as "1.1"']),
    ('~1.3', '2.4.5', ['"2.4.5" does not have same major version as "1.3"']),
]

# constraints_test.go TestConstraintsValidateIncludePrerelease tests2.
VALIDATE_INCLUDE_PRE_FIRST_MESSAGE_CASES = [
    ('> 1.2.3', '1.2.3-beta.1', '"1.2.3-beta.1" is less than or equal to "1.2.3"'),
    ('< 1.2.3', '1.2.4-beta.1', '"1.2.4-beta.1" is greater than or equal to "1.2.3"'),
    ('>= 1.2.3', '1.2.3-beta.1', '"1.2.3-beta.1" is less than "1.2.3"'),
    ('<= 1.2.3', '1.2.4-beta.1', '"1.2.4-beta.1" is greater than "1.2.3"'),
    ('2.x', '1.2.3', '"1.2.3" is less than "2.x"'),
    ('2', '1.2.3', '"1.2.3" is less than "2"'),
    ('= 2.0', '1.2.3', '"1.2.3" is less than "2.0"'),
    ('!=4.1', '4.1.0', '"4.1.0" is equal to "4.1"'),
    ('!=4.x', '4.1.0', '"4.1.0" is equal to "4.x"'),
    ('!=4.2.x', '4.2.3', '"4.2.3" is equal to "4.2.x"'),
    ('>1.1', '1.1.0', '"1.1.0" is less than or equal to "1.1"'),
    ('<1.1', '1.1.0', '"1.1.0" is greater than or equal to "1.1"'),
    ('<1.1', '1.1.1', '"1.1.1" is greater than or equal to "1.1"'),
    ('<1.x', '2.1.1', '"2.1.1" is greater than or equal to "1.x"'),
    ('<1.1.x', '1.2.1', '"1.2.1" is greater than or equal to "1.1.x"'),
    ('>=1.1', '0.0.9', '"0.0.9" is less than "1.1"'),
    ('<=2.x', '3.1.0', '"3.1.0" is greater than "2.x"'),
    ('<=1.1', '1.2.1', '"1.2.1" is greater than "1.1"'),
    ('<=1.1.x', '1.2.500', '"1.2.500" is greater than "1.1.x"'),
    ('>1.1, <3', '4.3.2', '"4.3.2" is greater than or equal to "3"'),
    ('>=1.1, <2, !=1.2.3', '1.2.3', '"1.2.3" is equal to "1.2.3"'),
    ('>=1.1, <2, !=1.2.3 || > 3', '3.0.0', '"3.0.0" is greater than or equal to "2"'),
    ('>=1.1, <2, !=1.2.3 || > 3', '1.2.3', '"1.2.3" is equal to "1.2.3"'),
    ('1.1 - 3', '4.3.2', '"4.3.2" is greater than "3"'),
    ('^1.1', '4.3.2', '"4.3.2" does not have same major version as "1.1"'),
    ('^1.12.7', '1.6.6', '"1.6.6" is less than "1.12.7"'),
    ('^2.x', '1.1.1', '"1.1.1" is less than "2.x"'),
    ('^1.x', '2.1.1', '"2.1.1" does not have same major version as "1.x"'),
    ('^0.2', '0.3.0', '"0.3.0" does not have same minor version as "0.2". Expected minor versions to match when constraint major version is 0'),
    ('^0.2', '0.1.1', '"0.1.1" is less than "0.2"'),
    ('^0.0.3', '0.1.1', '"0.1.1" does not have same minor version as "0.0.3"'),
    ('^0.0.3', '0.0.4', '"0.0.4" does not equal "0.0.3". Expect version and constraint to equal when major and minor versions are 0'),
    ('^0.0.3', '0.0.2', '"0.0.2" is less than "0.0.3"'),
    ('~1', '2.1.2', '"2.1.2" does not have same major version as "1"'),
    ('~1.x', '2.1.1', '"2.1.1" does not have same major version as "1.x"'),
    ('~1.2.3', '1.2.2', '"1.2.2" is less than "1.2.3"'),
    ('~1.2.3', '1.3.2', '"1.3.2" does not have same major and minor version as "1.2.3"'),
    ('~1.1', '1.2.3', '"1.2.3" does not have same major and minor version as "1.1"'),
    ('~1.3', '2.4.5', '"2.4.5" does not have same major version as "1.3"'),
]

# TestConstraintString, TestTextMarshalConstraints and TestRewriteRange inputs: String().
CONSTRAINT_STRING_CASES = [
    ('*', '*'),
    ('>=1.2.3', '>=1.2.3'),
    ('>= 1.2.3', '>=1.2.3'),
    ('2.x,   >=1.2.3 || >4.5.6, < 5.7', '2.x >=1.2.3 || >4.5.6 <5.7'),
    ('2.x,   >=1.2.3 || >4.5.6, < 5.7 || >40.50.60, < 50.70', '2.x >=1.2.3 || >4.5.6 <5.7 || >40.50.60 <50.70'),
    ('1.2', '1.2'),
    ('1.2.3', '1.2.3'),
    ('>=1.2.3', '>=1.2.3'),
    ('<=1.2.3', '<=1.2.3'),
    ('1 <=1.2.3', '1 <=1.2.3'),
    ('1, <=1.2.3', '1 <=1.2.3'),
    ('>1, <=1.2.3', '>1 <=1.2.3'),
    ('> 1 , <=1.2.3', '>1 <=1.2.3'),
    ('2 - 3', '>=2 <=3'),
    ('2 - 3, 2 - 3', '>=2 <=3 >=2 <=3'),
    ('2 - 3, 4.0.0 - 5.1', '>=2 <=3 >=4.0.0 <=5.1'),
    ('2 - 3 4.0.0 - 5.1', '>=2 <=3 >=4.0.0 <=5.1'),
    ('1.0.0 - 2.0.0 <=2.0.0', '>=1.0.0 <=2.0.0 <=2.0.0'),
]



# ---------------------------------------------------------------------------
# Versions


@pytest.mark.parametrize(("text", "canonical", "error"), STRICT_CASES, ids=_ids(STRICT_CASES, 1))
def test_parse_strict_accepts_only_full_semver(text: str, canonical: str | None, error: str | None) -> None:
    if error is None:
        assert str(Version.parse_strict(text)) == canonical
    else:
        with pytest.raises(VersionError) as info:
            Version.parse_strict(text)
        assert str(info.value) == error


@pytest.mark.parametrize(("text", "canonical", "error"), LOOSE_CASES, ids=_ids(LOOSE_CASES, 1))
def test_parse_coerces_semver_ish_text(text: str, canonical: str | None, error: str | None) -> None:
    if error is None:
        assert str(Version.parse(text)) == canonical
    else:
        with pytest.raises(VersionError) as info:
            Version.parse(text)
        assert str(info.value) == error


PARSE_ERROR_CASES = [
    ("lenient_empty", Version.parse, "", "invalid semantic version"),
    ("strict_empty", Version.parse_strict, "", "version string empty"),
    ("lenient_trailing_newline", Version.parse, "1.2.3\n", "invalid semantic version"),
    ("strict_trailing_newline", Version.parse_strict, "1.2.3\n", "invalid characters in version"),
    ("lenient_non_ascii_digit", Version.parse, "\u0661.2.3", "invalid semantic version"),
    ("strict_empty_segment", Version.parse_strict, "1..3", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("lenient_major_overflow", Version.parse, "18446744073709551616.0.0",
     'error parsing version segment: strconv.ParseUint: parsing "18446744073709551616": value out of range'),
    ("lenient_minor_overflow_keeps_zeros", Version.parse, "1.018446744073709551616",
     'error parsing version segment: strconv.ParseUint: parsing "018446744073709551616": value out of range'),
    ("strict_patch_overflow", Version.parse_strict, "1.2.18446744073709551616",
     'strconv.ParseUint: parsing "18446744073709551616": value out of range'),
    ("lenient_too_long", Version.parse, "1.0.0-" + "a" * 251, "version string is too long (max 256 bytes)"),
    ("strict_too_long", Version.parse_strict, "1.0.0-" + "a" * 251, "version string is too long (max 256 bytes)"),
    ("length_counts_utf8_bytes", Version.parse, "1.0.0-" + "\u00e9" * 125 + "a", "version string is too long (max 256 bytes)"),
    ("lenient_non_ascii_prerelease", Version.parse, "1.0.0-" + "\u00e9" * 125, "invalid semantic version"),
    ("strict_non_ascii_prerelease", Version.parse_strict, "1.0.0-\u00e9", "invalid prerelease string"),
]


@pytest.mark.parametrize(("parse", "text", "error"), [c[1:] for c in PARSE_ERROR_CASES], ids=[c[0] for c in PARSE_ERROR_CASES])
def test_parse_errors_carry_go_messages(parse: object, text: str, error: str) -> None:
    with pytest.raises(VersionError) as info:
        parse(text)  # type: ignore[operator]
    assert str(info.value) == error


def test_largest_uint64_version_is_accepted() -> None:
    v = Version.parse_strict("18446744073709551615.0.0")
    assert v.major == versions.UINT64_MAX


def test_version_error_is_a_value_error_and_a_helm_error() -> None:
    with pytest.raises(ValueError):
        Version.parse("foo")
    assert issubclass(VersionError, errors.HelmError)


ORIGINAL_CASES = [
    "1.2.3", "v1.2.3", "1.0", "v1.0", "1", "v1", "1.2-5", "v1.2-5", "1.2-beta.5", "v1.2-beta.5",
    "1.2.0-x.Y.0+metadata", "v1.2.0-x.Y.0+metadata", "1.2.0-x.Y.0+metadata-width-hypen",
    "v1.2.0-x.Y.0+metadata-width-hypen", "1.2.3-rc1-with-hypen", "v1.2.3-rc1-with-hypen",
]


@pytest.mark.parametrize("text", ORIGINAL_CASES, ids=ORIGINAL_CASES)
def test_original_is_the_parsed_text(text: str) -> None:
    assert Version.parse(text).original == text


def test_parts_are_exposed() -> None:
    v = Version.parse("1.2.3-beta.1+build.123")
    assert (v.major, v.minor, v.patch, v.prerelease, v.metadata) == (1, 2, 3, "beta.1", "build.123")


def test_constructor_is_go_new_with_canonical_original() -> None:
    assert str(Version(0, 1, 2)) == "0.1.2"
    v = Version(1, 2, 3, prerelease="alpha.1", metadata="foo.bar")
    assert (str(v), v.original) == ("1.2.3-alpha.1+foo.bar", "1.2.3-alpha.1+foo.bar")


def test_constructor_refuses_numbers_outside_uint64() -> None:
    with pytest.raises(VersionError) as info:
        Version(-1, 0, 0)
    assert str(info.value) == "major version -1 is outside uint64"


@pytest.mark.parametrize(("a", "b", "expected"), COMPARE_CASES, ids=_ids(COMPARE_CASES))
def test_compare_orders_like_masterminds(a: str, b: str, expected: int) -> None:
    va, vb = Version.parse(a), Version.parse(b)
    assert va.compare(vb) == expected
    assert vb.compare(va) == -expected
    assert (va < vb, va <= vb, va == vb, va >= vb, va > vb) == (
        expected < 0, expected <= 0, expected == 0, expected >= 0, expected > 0,
    )


def test_prerelease_numbers_beyond_uint64_compare_as_words() -> None:
    big = Version.parse("1.0.0-18446744073709551616")
    assert big.compare(Version.parse("1.0.0-18446744073709551615")) == 1
    assert big.compare(Version.parse("1.0.0-2")) == 1  # a word sorts after any number
    assert big.compare(Version.parse("1.0.0-2a")) == -1  # words compare byte-wise


def test_equal_versions_ignore_metadata_and_hash_alike() -> None:
    a, b = Version.parse("3.2-beta+foo"), Version.parse("3.2.0-beta+bar")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, Version.parse("3.2.0")}) == 2


def test_versions_sort_by_precedence() -> None:
    texts = ["1.0.0", "1.0.0-rc.1", "1.0.0-beta.11", "1.0.0-beta.2", "1.0.0-beta", "1.0.0-alpha.beta", "1.0.0-alpha.1", "1.0.0-alpha", "0.9"]
    assert [v.original for v in sorted(Version.parse(t) for t in texts)] == list(reversed(texts))


def test_version_never_equals_a_string() -> None:
    assert Version.parse("1.0.0") != "1.0.0"
    with pytest.raises(TypeError):
        _ = Version.parse("1.0.0") < "2.0.0"  # type: ignore[operator]


INC_CASES = [
    ("1.2.3", "patch", "1.2.4", "1.2.4"),
    ("v1.2.4", "patch", "1.2.5", "v1.2.5"),
    ("1.2.3", "minor", "1.3.0", "1.3.0"),
    ("v1.2.4", "minor", "1.3.0", "v1.3.0"),
    ("1.2.3", "major", "2.0.0", "2.0.0"),
    ("v1.2.4", "major", "2.0.0", "v2.0.0"),
    ("1.2.3+meta", "patch", "1.2.4", "1.2.4"),
    ("1.2.3-beta+meta", "patch", "1.2.3", "1.2.3"),
    ("v1.2.4-beta+meta", "patch", "1.2.4", "v1.2.4"),
    ("1.2.3-beta+meta", "minor", "1.3.0", "1.3.0"),
    ("v1.2.4-beta+meta", "minor", "1.3.0", "v1.3.0"),
    ("1.2.3-beta+meta", "major", "2.0.0", "2.0.0"),
    ("v1.2.4-beta+meta", "major", "2.0.0", "v2.0.0"),
]


@pytest.mark.parametrize(("text", "how", "expected", "original"), INC_CASES, ids=_ids(INC_CASES))
def test_increments_drop_prerelease_and_keep_v_prefix(text: str, how: str, expected: str, original: str) -> None:
    v = Version.parse(text)
    nxt = getattr(v, f"inc_{how}")()
    assert (str(nxt), nxt.original) == (expected, original)
    assert v.original == text  # the input is untouched


OVERFLOW_CASES = [
    ("patch", Version(1, 2, versions.UINT64_MAX)),
    ("minor", Version(1, versions.UINT64_MAX, 0)),
    ("major", Version(versions.UINT64_MAX, 0, 0)),
]


@pytest.mark.parametrize(("how", "version"), OVERFLOW_CASES, ids=[c[0] for c in OVERFLOW_CASES])
def test_increment_past_uint64_is_refused(how: str, version: Version) -> None:
    with pytest.raises(VersionError) as info:
        getattr(version, f"inc_{how}")()
    assert str(info.value) == f"{how} version increment would overflow uint64"


SET_CASES = [
    ("prerelease_invalid", "1.2.3", "with_prerelease", "**", None, "invalid prerelease string"),
    ("prerelease_leading_zero", "1.2.3", "with_prerelease", "a.01", None, "version segment starts with 0"),
    ("prerelease", "1.2.3", "with_prerelease", "beta", ("1.2.3-beta", "1.2.3-beta"), None),
    ("prerelease_v", "v1.2.4+m", "with_prerelease", "beta", ("1.2.4-beta+m", "v1.2.4-beta+m"), None),
    ("prerelease_removed", "1.2.4-rc", "with_prerelease", "", ("1.2.4", "1.2.4"), None),
    ("metadata_invalid", "1.2.3", "with_metadata", "**", None, "invalid metadata string"),
    ("metadata", "1.2.3", "with_metadata", "meta", ("1.2.3+meta", "1.2.3+meta"), None),
    ("metadata_v", "v1.2.4-rc", "with_metadata", "meta.01", ("1.2.4-rc+meta.01", "v1.2.4-rc+meta.01"), None),
]


@pytest.mark.parametrize(("text", "method", "arg", "expected", "error"), [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES])
def test_with_prerelease_and_metadata_validate_like_set_methods(
    text: str, method: str, arg: str, expected: tuple[str, str] | None, error: str | None
) -> None:
    v = Version.parse(text)
    if error is not None:
        with pytest.raises(VersionError) as info:
            getattr(v, method)(arg)
        assert str(info.value) == error
        return
    nxt = getattr(v, method)(arg)
    assert (str(nxt), nxt.original) == expected


# ---------------------------------------------------------------------------
# Constraints


PARSE_CONSTRAINT_CASES = [
    (">= 1.2", ">=", "1.2.0"),
    ("1.0", "", "1.0.0"),
    ("<= 1.2", "<=", "1.2.0"),
    ("=< 1.2", "=<", "1.2.0"),
    ("=> 1.2", "=>", "1.2.0"),
    ("v1.2", "", "1.2.0"),
    ("=1.5", "=", "1.5.0"),
    ("> 1.3", ">", "1.3.0"),
    ("< 1.4.1", "<", "1.4.1"),
    ("< 40.50.10", "<", "40.50.10"),
    ("~> 1.x-beta+meta", "~>", "1.0.0-beta"),
    ("^ v1.2.3+meta", "^", "1.2.3+meta"),
]


@pytest.mark.parametrize(("text", "op", "con"), PARSE_CONSTRAINT_CASES, ids=_ids(PARSE_CONSTRAINT_CASES, 1))
def test_constraint_term_keeps_operator_and_fills_wildcards(text: str, op: str, con: str) -> None:
    (group,) = Constraints.parse(text).groups
    (term,) = group
    assert (term.op, str(term.con)) == (op, con)


IMPROPER_CASES = [
    ("word", "foo", 'improper constraint: "foo"'),
    ("empty", "", 'improper constraint: ""'),
    ("empty_group", ">=1 ||", 'improper constraint: ""'),
    ("four_parts", "1.2.3.4", 'improper constraint: "1.2.3.4"'),
    ("nul_quoted_like_go", "a\x00b", 'improper constraint: "a\\x00b"'),
    ("quotes_escaped", '"1"', 'improper constraint: "\\"1\\""'),
    ("backslash_escaped", "1\\2", 'improper constraint: "1\\\\2"'),
    ("printable_unicode_kept", "\u00e9", 'improper constraint: "\u00e9"'),
    ("failing_group_named", ">= 1.0.0 || \t~", 'improper constraint: " \\t~"'),
    ("pipe_in_version", "1|2", "constraint parser error"),
    ("double_x", "xx", "constraint parser error"),
    ("too_long", ">= 1.0.0 || " * 43, "constraint string is too long (max 512 bytes)"),
    ("too_many_groups", " || ".join([">= 1.0.0"] * 33), "too many constraint groups (max 32)"),
]


@pytest.mark.parametrize(("text", "error"), [c[1:] for c in IMPROPER_CASES], ids=[c[0] for c in IMPROPER_CASES])
def test_bad_constraints_are_refused_with_go_messages(text: str, error: str) -> None:
    with pytest.raises(VersionError) as info:
        Constraints.parse(text)
    assert str(info.value) == error


def test_limits_are_inclusive() -> None:
    assert len(Constraints.parse(" || ".join([">= 1.0.0"] * 32)).groups) == 32
    text = ">=1" + " " * (versions.MAX_CONSTRAINT_LEN - 3)
    assert str(Constraints.parse(text)) == ">=1"


def test_hostile_constraints_fail_fast_without_regex_blowup() -> None:
    # Go's regexp is linear; a literal port to Python's backtracking engine is exponential here.
    for text in ["1" + "    1" * 100 + " !", " " * 511 + "!", "1" * 511 + "!", "1 - " * 120 + "!"]:
        with pytest.raises(VersionError):
            Constraints.parse(text)


@pytest.mark.parametrize(("text", "ors", "first_count", "error"), NEW_CONSTRAINT_CASES, ids=_ids(NEW_CONSTRAINT_CASES, 1))
def test_constraint_groups_split_on_or_and_terms_on_comma_or_space(
    text: str, ors: int, first_count: int, error: str | None
) -> None:
    if error is not None:
        with pytest.raises(VersionError) as info:
            Constraints.parse(text)
        assert str(info.value) == error
        return
    cs = Constraints.parse(text)
    assert (len(cs.groups), len(cs.groups[0])) == (ors, first_count)


@pytest.mark.parametrize(("constraint", "version", "ok"), CONSTRAINT_CHECK_CASES, ids=_ids(CONSTRAINT_CHECK_CASES))
def test_single_constraint_check(constraint: str, version: str, ok: bool) -> None:
    assert Constraints.parse(constraint).check(Version.parse(version)) is ok


@pytest.mark.parametrize(("constraint", "version", "ok"), CONSTRAINTS_CHECK_CASES, ids=_ids(CONSTRAINTS_CHECK_CASES))
def test_constraints_check(constraint: str, version: str, ok: bool) -> None:
    assert Constraints.parse(constraint).check(Version.parse(version)) is ok


@pytest.mark.parametrize(
    ("constraint", "version", "ok"), CONSTRAINTS_CHECK_INCLUDE_PRE_CASES, ids=_ids(CONSTRAINTS_CHECK_INCLUDE_PRE_CASES)
)
def test_constraints_check_with_include_prerelease(constraint: str, version: str, ok: bool) -> None:
    cs = Constraints.parse(constraint, include_prerelease=True)
    assert cs.check(Version.parse(version)) is ok


@pytest.mark.parametrize(("constraint", "version", "reasons"), VALIDATE_CASES, ids=_ids(VALIDATE_CASES))
def test_validate_lists_every_reason(constraint: str, version: str, reasons: list[str]) -> None:
    cs, v = Constraints.parse(constraint), Version.parse(version)
    assert cs.validate(v) == (not reasons, reasons)
    assert cs.check(v) is (not reasons)


@pytest.mark.parametrize(("constraint", "version", "reasons"), VALIDATE_INCLUDE_PRE_CASES, ids=_ids(VALIDATE_INCLUDE_PRE_CASES))
def test_validate_with_include_prerelease(constraint: str, version: str, reasons: list[str]) -> None:
    cs, v = Constraints.parse(constraint, include_prerelease=True), Version.parse(version)
    assert cs.validate(v) == (not reasons, reasons)
    assert cs.check(v) is (not reasons)


@pytest.mark.parametrize(
    ("constraint", "version", "message"), VALIDATE_FIRST_MESSAGE_CASES, ids=_ids(VALIDATE_FIRST_MESSAGE_CASES)
)
def test_validate_first_reason(constraint: str, version: str, message: str) -> None:
    ok, reasons = Constraints.parse(constraint).validate(Version.parse_strict(version))
    assert not ok and reasons[0] == message


@pytest.mark.parametrize(
    ("constraint", "version", "message"),
    VALIDATE_INCLUDE_PRE_FIRST_MESSAGE_CASES,
    ids=_ids(VALIDATE_INCLUDE_PRE_FIRST_MESSAGE_CASES),
)
def test_validate_first_reason_with_include_prerelease(constraint: str, version: str, message: str) -> None:
    ok, reasons = Constraints.parse(constraint, include_prerelease=True).validate(Version.parse_strict(version))
    assert not ok and reasons[0] == message


@pytest.mark.parametrize("include_prerelease", [False, True], ids=["release_only", "include_prerelease"])
def test_validate_reports_each_failing_term(include_prerelease: bool) -> None:
    cs = Constraints.parse("!= 1.2.5, ^2, <= 1.1.x", include_prerelease=include_prerelease)
    assert cs.validate(Version.parse_strict("1.2.3")) == (
        False, ['"1.2.3" is less than "2"', '"1.2.3" is greater than "1.1.x"'],
    )


def test_validate_reports_prerelease_refusal_once() -> None:
    ok, reasons = Constraints.parse(">1 <3 || ^2 || ~2.1").validate(Version.parse("2.1.0-rc.1"))
    assert (ok, reasons) == (
        False, ['"2.1.0-rc.1" is a prerelease version and the constraint is only looking for release versions'],
    )


def test_prerelease_in_one_group_admits_prereleases_only_there() -> None:
    cs = Constraints.parse(">=2.0.0 || >=1.0.0-0 <1.5")
    assert cs.check(Version.parse("1.2.0-rc.1"))
    assert not cs.check(Version.parse("2.1.0-rc.1"))


@pytest.mark.parametrize(("text", "canonical"), CONSTRAINT_STRING_CASES, ids=_ids(CONSTRAINT_STRING_CASES, 1))
def test_constraints_print_canonically_and_reparse(text: str, canonical: str) -> None:
    cs = Constraints.parse(text)
    assert str(cs) == canonical
    assert str(Constraints.parse(str(cs))) == canonical


COMPATIBLE_CASES = [
    ("kube_range", ">=1.20.0-0", "v1.37.0", True),
    ("kube_prerelease_needs_pre_in_range", ">=1.20.0", "1.37.0-gke.1", False),
    ("kube_prerelease_admitted", ">=1.20.0-0", "1.37.0-gke.1", True),
    ("tilde", "~1.37", "1.37.4", True),
    ("caret_zero", "^0.2.3", "0.3.0", False),
    ("bad_constraint", ">=>1", "1.0.0", False),
    ("bad_version", ">=1", "one", False),
]


@pytest.mark.parametrize(("constraint", "version", "ok"), [c[1:] for c in COMPATIBLE_CASES], ids=[c[0] for c in COMPATIBLE_CASES])
def test_is_compatible_range_is_false_on_parse_errors(constraint: str, version: str, ok: bool) -> None:
    assert versions.is_compatible_range(constraint, version) is ok


# ---------------------------------------------------------------------------
# The string-method paths against the patterns they stand in for (generated inputs)

#: NewVersion's pattern as Masterminds writes it (possessive where Python would backtrack), the
#: reference for ``versions._loose_parts``: groups 1 major, 2 .minor, 3 .patch, 5 prerelease, 8 metadata.
_IDENT = r"[0-9A-Za-z\-]++"
LOOSE_PATTERN = re.compile(
    rf"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-({_IDENT}(\.{_IDENT})*))?(\+({_IDENT}(\.{_IDENT})*))?")

VERSION_ALPHABET = "v019.-+aZ|\u0661"


def _generated_versions(count: int) -> list[str]:
    """Version-shaped texts from pieces (numbers, wildcards, identifiers, stray characters)."""
    pick = random.Random(20).choice
    pieces = ["1", "0", "12", "007", "18446744073709551616", "x", "*", "a", "-", ".", "+", "v", "rc.1", "beta-2", " ",
              "\u0661", "", "0a", "Z"]
    return ["".join(pick(pieces) for _ in range(pick(range(1, 9)))) for _ in range(count)]


def _loose_by_pattern(text: str) -> tuple[tuple[str, str, str], str, str] | None:
    m = LOOSE_PATTERN.fullmatch(text)
    if m is None:
        return None
    return (m[1], (m[2] or "")[1:], (m[3] or "")[1:]), m[5] or "", m[8] or ""


def test_version_syntax_by_string_methods_is_the_pattern() -> None:
    texts = ["".join(t) for n in range(6) for t in itertools.product(VERSION_ALPHABET, repeat=n)]
    texts += _generated_versions(20000) + [case[0] for case in LOOSE_CASES]
    matched = 0
    for text in texts:
        expected = _loose_by_pattern(text)
        assert versions._loose_parts(text) == expected, text
        matched += expected is not None
    assert matched > 5000  # the inputs exercise the accepting side too


def _pieces(c: versions._Constraint) -> tuple[object, ...]:
    v = c.con
    return (c.op, c.orig, c.dirty, c.minor_dirty, c.patch_dirty, v.major, v.minor, v.patch, v.prerelease,
            v.metadata, v.original)


def _outcome(parse: Callable[[Any], tuple[tuple[versions._Constraint, ...], ...]], given: object) -> object:
    """The groups' terms ``parse(given)`` returns, or the message of its error."""
    try:
        return [[_pieces(c) for c in group] for group in parse(given)]
    except VersionError as exc:
        return str(exc)


def _built(plain: list[versions.Pieces]) -> tuple[tuple[versions._Constraint, ...], ...]:
    return tuple((versions._constraint(*pieces),) for pieces in plain)


CONSTRAINT_ALPHABET = " \t\v=!><~^v01x*.-+a|,"


def _generated_constraints(count: int) -> list[str]:
    """Constraint-shaped texts: operators, spaces and versions, mostly joined by ``||``."""
    pick = random.Random(21).choice
    ops = ["", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^", ">>", "=="]
    spaces = ["", "", "", "", " ", " ", "  ", "\t", "\n", "\f", "\r", "\v", "\u00a0"]
    joins = ["||", "||", " || ", "|| ", " ||\t", ",", " ", " - ", "|"]
    numbers = ["0", "1", "12", "007", "x", "X", "*", "0", "1", "12", "x", "18446744073709551616", "1x", ""]
    tails = ["", "", "", "", "", "-0", "-rc.1", "-a-b", "+b.2", "-0+x", "-", "-01", "+", "-.1"]

    def version() -> str:
        if pick(range(10)) == 0:
            return _generated_versions(1)[0]
        return pick(["", "", "v"]) + ".".join(pick(numbers) for _ in range(pick([1, 2, 3, 3, 3, 4]))) + pick(tails)

    texts = []
    for _ in range(count):
        terms = [pick(spaces) + pick(ops) + pick(spaces) + version() + pick(spaces)
                 for _ in range(pick([1, 1, 1, 2, 3]))]
        texts.append("".join(t + pick(joins) for t in terms[:-1]) + terms[-1])
    return texts


def test_plain_constraints_by_string_methods_are_the_patterns() -> None:
    """Every constraint the string path answers, it answers as the patterns do (terms, wildcards,
    versions, and the error when a number overflows); the others go to the patterns."""
    texts = ["".join(t) for n in range(5) for t in itertools.product(CONSTRAINT_ALPHABET, repeat=n)]
    texts += _generated_constraints(30000) + [c[0] for c in PARSE_CONSTRAINT_CASES] + [c[1] for c in IMPROPER_CASES]
    texts += ["||".join([">=1.2"] * 32), "||".join([">=1.2"] * 33), ">=1.2.3-0 || 99999999999999999999999"]
    answered = 0
    for text in texts:
        plain = versions._plain_terms(text)
        if plain is None:
            continue
        answered += 1
        assert _outcome(_built, plain) == _outcome(versions._parsed_groups, text), text
    assert answered > 5000


def test_charts_constraints_take_the_string_path() -> None:
    for text in (">=1.21.0-0", ">= 1.22.0-0", "8.4.*", "2.x.x", "v0.6.0", "<1.25-0", ">= 1.27.x", "^1.2 || ~2"):
        assert versions._plain_terms(text) is not None, text


# ---------------------------------------------------------------------------
# Conformance with the real helm binary (Sprig's semverCompare and semver)


def _helm() -> str:
    for candidate in (os.environ.get("HELM_BIN"), shutil.which("helm"), "/root/.cache/hc-bootstrap/bin/helm"):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip("helm binary not found (set HELM_BIN or put helm on PATH); conformance not checked")


def _helm_template(tmp_path: Path, template: str, values: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """Run ``helm template`` on a one-file chart; ``template`` is the value of a ConfigMap key."""
    chart = tmp_path / "semverdemo"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: semverdemo\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(json.dumps(values))
    (chart / "templates" / "out.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: out\ndata:\n  out: |-\n    " + template + "\n"
    )
    return subprocess.run(
        [_helm(), "template", "x", str(chart)], capture_output=True, text=True, timeout=120, check=False
    )


def _helm_render(tmp_path: Path, template: str, values: dict[str, object]) -> list[str]:
    result = _helm_template(tmp_path, template, values)
    assert result.returncode == 0, result.stderr
    return str(yaml.safe_load(result.stdout)["data"]["out"]).split()


@pytest.mark.conformance
def test_semver_compare_matches_helm(tmp_path: Path) -> None:
    cases = [(c, v) for c, v, _ in CONSTRAINTS_CHECK_CASES + CONSTRAINT_CHECK_CASES]
    cases += [(c, v) for c, v, _ in COMPARE_CASES] + [(c[1], c[2]) for c in COMPATIBLE_CASES[:5]]
    template = "{{ range .Values.cases }} {{ semverCompare (index . 0) (index . 1) }}{{ end }}"
    got = _helm_render(tmp_path, template, {"cases": cases})
    expected = [str(Constraints.parse(c).check(Version.parse(v))).lower() for c, v in cases]
    assert got == expected


@pytest.mark.conformance
def test_semver_function_prints_like_helm(tmp_path: Path) -> None:
    texts = [text for text, canonical, _ in LOOSE_CASES if canonical is not None]
    template = (
        "{{ range .Values.texts }} {{ $v := semver . }}"
        "{{ $v }}|{{ $v.Original }}|{{ $v.Major }}|{{ $v.Prerelease }}|{{ $v.Metadata }}{{ end }}"
    )
    got = _helm_render(tmp_path, template, {"texts": texts})
    expected = []
    for text in texts:
        v = Version.parse(text)
        expected.append(f"{v}|{v.original}|{v.major}|{v.prerelease}|{v.metadata}")
    assert got == expected


HELM_ERROR_CASES = [
    ("improper_constraint", 'semverCompare "foo" "1.0.0"', 'improper constraint: "foo"'),
    ("parser_error", 'semverCompare "1|2" "1.0.0"', "constraint parser error"),
    ("bad_version", 'semverCompare ">=1" "1.2.beta"', "invalid semantic version"),
    ("prerelease_zero", 'semver "1.2.3-beta.01"', "version segment starts with 0"),
]


@pytest.mark.conformance
@pytest.mark.parametrize(("call", "message"), [c[1:] for c in HELM_ERROR_CASES], ids=[c[0] for c in HELM_ERROR_CASES])
def test_error_texts_match_helm(tmp_path: Path, call: str, message: str) -> None:
    result = _helm_template(tmp_path, "{{ " + call + " }}", {})
    assert result.returncode != 0
    func = call.split()[0]
    assert f"error calling {func}: {message}" in result.stderr
    with pytest.raises(VersionError) as info:
        args = [a.strip('"') for a in call.split()[1:]]
        if func == "semver":
            Version.parse(args[0])
        else:
            Constraints.parse(args[0]).check(Version.parse(args[1]))
    assert str(info.value) == message
