"""The recording proxy: any HTTP client, in any process or language, recorded into and
replayed from this library's cassettes.

`CassetteProxy` is an HTTP server on 127.0.0.1 in front of an upstream API. Under a
record mode that records it forwards each request the cassette cannot answer,
passes the reply on as it arrives and appends the exchange to the cassette; under a
replaying mode it answers from the cassette alone. Matching, misses and unplayed
interactions follow the plugin's rules, and a miss is answered with an HTTP error whose
JSON body carries the code and the diff. `proxy_cassette` opens a cassette file with a
proxy in front of it and reports the run (`ProxyReport`); the ``proxy`` command and the
plugin's ``hc_proxy`` fixture use it. The guide is ``docs/proxy.md``.
"""

from ._cassette_proxy import CODE_HEADER, MISS_STATUS, NO_UPSTREAM, CassetteProxy, recorded_origin
from ._run import ProxyReport, ProxyRun, faults_for, proxy_cassette

__all__ = [
    "CODE_HEADER",
    "MISS_STATUS",
    "NO_UPSTREAM",
    "CassetteProxy",
    "ProxyReport",
    "ProxyRun",
    "faults_for",
    "proxy_cassette",
    "recorded_origin",
]
