"""SPRIG_FUNCS holds exactly Sprig v3.3.0's TxtFuncMap minus what Helm 3.22 removes or replaces."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from helm_core.gotemplate.funcs.sprig import EXCLUDED_NAMES, SPRIG_FUNCS
from helm_core.golib.gotypes import GO_PARAM_TYPES

SPRIG_SOURCE = Path("/root/go/pkg/mod/github.com/!masterminds/sprig/v3@v3.3.0/functions.go")

#: Every name of Sprig v3.3.0's genericMap (functions.go), kept here so the test runs without Go sources.
SPRIG_NAMES = frozenset("""
hello ago date date_in_zone date_modify dateInZone dateModify duration durationRound htmlDate htmlDateInZone
must_date_modify mustDateModify mustToDate now toDate unixEpoch abbrev abbrevboth trunc trim upper lower title
untitle substr repeat trimall trimAll trimSuffix trimPrefix nospace initials randAlphaNum randAlpha randAscii
randNumeric swapcase shuffle snakecase camelcase kebabcase wrap wrapWith contains hasPrefix hasSuffix quote squote
cat indent nindent replace plural sha1sum sha256sum sha512sum adler32sum toString atoi int64 int float64 seq
toDecimal split splitList splitn toStrings until untilStep add1 add sub div mod mul randInt add1f addf subf divf
mulf biggest max min maxf minf ceil floor round join sortAlpha default empty coalesce all any compact mustCompact
fromJson toJson toPrettyJson toRawJson mustFromJson mustToJson mustToPrettyJson mustToRawJson ternary deepCopy
mustDeepCopy typeOf typeIs typeIsLike kindOf kindIs deepEqual env expandenv getHostByName base dir clean ext isAbs
osBase osClean osDir osExt osIsAbs b64enc b64dec b32enc b32dec tuple list dict get set unset hasKey pluck keys
pick omit merge mergeOverwrite mustMerge mustMergeOverwrite values append push mustAppend mustPush prepend
mustPrepend first mustFirst rest mustRest last mustLast initial mustInitial reverse mustReverse uniq mustUniq
without mustWithout has mustHas slice mustSlice concat dig chunk mustChunk bcrypt htpasswd genPrivateKey
derivePassword buildCustomCert genCA genCAWithKey genSelfSignedCert genSelfSignedCertWithKey genSignedCert
genSignedCertWithKey encryptAES decryptAES randBytes uuidv4 semver semverCompare fail regexMatch mustRegexMatch
regexFindAll mustRegexFindAll regexFind mustRegexFind regexReplaceAll mustRegexReplaceAll regexReplaceAllLiteral
mustRegexReplaceAllLiteral regexSplit mustRegexSplit regexQuoteMeta urlParse urlJoin
""".split())


def test_names_are_sprig_minus_helm_removals_and_replacements() -> None:
    assert EXCLUDED_NAMES == {"env", "expandenv", "toJson", "fromJson", "fail"}
    assert set(SPRIG_FUNCS) == SPRIG_NAMES - EXCLUDED_NAMES
    assert len(SPRIG_FUNCS) == 206


def test_name_list_matches_sprig_source_when_available() -> None:
    if not SPRIG_SOURCE.is_file():
        pytest.skip(f"Sprig sources not found at {SPRIG_SOURCE}: cross-check skipped")
    body = SPRIG_SOURCE.read_text().split("var genericMap", 1)[1]
    code = "\n".join(line for line in body.splitlines() if not line.strip().startswith("//"))
    names = set(re.findall(r'"([A-Za-z_0-9]+)":', code))
    assert names == SPRIG_NAMES


@pytest.mark.parametrize("name", sorted(SPRIG_FUNCS))
def test_every_function_declares_a_go_signature(name: str) -> None:
    fn = SPRIG_FUNCS[name]
    assert set(fn.__go_params__) <= GO_PARAM_TYPES and isinstance(fn.__go_variadic__, bool)
