"""Go's libraries that Helm's behaviour rests on, re-done in Python.

Helm answers with what Go's libraries answer, so charts see the same data here:

- :mod:`.gojson` — ``encoding/json`` (numbers as float64, key order, escaping);
- :mod:`.goyaml` and its readers (:mod:`.goyaml_block` without PyYAML, :mod:`.goyaml_read`
  with libyaml, both through :mod:`.goyaml_convert`) and writers (:mod:`.goyaml_emit` without
  PyYAML, :mod:`.goyaml_write` with libyaml's emitter) — ``sigs.k8s.io/yaml`` over
  ``yaml.v2``/``yaml.v3``: how values files are typed and how ``toYaml`` writes;
- :mod:`.goutf8` — ``unicode/utf8``: how Go steps through invalid UTF-8;
- :mod:`.goregexp` — ``regexp`` (RE2, linear time);
- :mod:`.versions` — ``Masterminds/semver/v3``: versions and constraints;
- :mod:`.labels` — ``k8s.io/apimachinery``'s label selectors (``--selector``, post-renderer targets).

This layer imports nothing of helm_core but :mod:`helm_core.errors` and :mod:`helm_core.support`.
"""
