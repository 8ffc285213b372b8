"""Admin policy per request: service account, Lua permissions, release ownership."""
from __future__ import annotations

import pytest

from helm_operator import errors, policy, settings

META = {"namespace": "team", "name": "web"}


def test_release_key_defaults_to_request_name_and_namespace():
    assert policy.release_key(META, {}) == policy.ReleaseKey("team", "web")
    assert str(policy.release_key(META, {"releaseName": "r", "targetNamespace": "apps"})) == "apps/r"


@pytest.mark.parametrize(("spec", "sec", "expected"), [
    ({"serviceAccountName": "deployer"}, settings.SecuritySettings(default_service_account="d"), "deployer"),
    ({}, settings.SecuritySettings(default_service_account="d"), "d"),
    ({}, settings.SecuritySettings(), ""),
], ids=["explicit", "default", "own-identity"])
def test_service_account_choice(spec, sec, expected):
    assert policy.service_account(META, spec, security=sec) == expected


def test_service_account_required_by_admin():
    with pytest.raises(errors.RequestError) as info:
        policy.service_account(META, {}, security=settings.SecuritySettings(require_service_account=True))
    assert str(info.value) == ("HelmRequest team/web: spec.serviceAccountName is required by the "
                               "operator (no default service account is configured)")
    assert info.value.reason == "ServiceAccountRequired"


def test_impersonated_user_is_the_service_account_username():
    assert policy.impersonated_user("team", "deployer") == "system:serviceaccount:team:deployer"


@pytest.mark.parametrize(("accepted", "allow", "granted"), [
    (["io", "os"], {"io", "network"}, {"io"}),
    ([], {"io", "network"}, set()),
    (["network"], set(), set()),
], ids=["intersection", "nothing-accepted", "nothing-allowed"])
def test_granted_lua_permissions_are_the_intersection(accepted, allow, granted):
    sec = settings.SecuritySettings(lua_allowlist=frozenset(allow))
    assert policy.granted_lua_permissions({"lua": {"acceptPermissions": accepted}}, security=sec) == granted


def test_lua_refusal_lists_asked_and_granted_and_why():
    msg = policy.lua_refusal({"hello": {"network", "io"}}, accepted=["io", "network"], allowlist=["io"])
    assert msg == ('chart "hello" asks for Lua permissions [io, network]; granted [io] '
                   "(not in the operator's allowlist: network)")
    msg = policy.lua_refusal({"hello/sub": {"os"}}, accepted=[], allowlist=["os"])
    assert msg == ('chart "hello/sub" asks for Lua permissions [os]; granted [] '
                   "(not in spec.lua.acceptPermissions: os)")
    assert policy.lua_refusal({"hello": {"io"}}, accepted=["io"], allowlist=["io"]) is None


def test_second_claimant_of_a_release_is_refused():
    key = policy.ReleaseKey("apps", "web")
    policy.check_owner(key, claimed_by="", requester="team/web")
    policy.check_owner(key, claimed_by="team/web", requester="team/web")
    with pytest.raises(errors.RequestError) as info:
        policy.check_owner(key, claimed_by="team/web", requester="other/web")
    assert str(info.value) == ("release apps/web is already managed by HelmRequest team/web; "
                               "choose another releaseName or targetNamespace")
    assert info.value.reason == "ReleaseClaimed"
