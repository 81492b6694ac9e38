"""Actions of ``trawl serve`` that write: a crawl started, dedup run, the index rebuilt, as jobs
(real ``trawl`` processes) behind the token, from the API and from a signed-in page's forms."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from tests.web.conftest import build
from tests.web.test_monitor import PLAIN, _crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.web.app import create_app, csrf_value
from trawl.web.jobs import Job, Jobs

TOKEN = "s3cret-jobs-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FORM = {"content-type": "application/x-www-form-urlencoded"}


def _until(fetch: Callable[[], Any], check: Callable[[Any], bool], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    data = None
    while time.monotonic() < deadline:
        data = fetch()
        if check(data):
            return data
        time.sleep(0.1)
    raise AssertionError(f"never matched; last: {data}")


def _last_job(client: TestClient, name: str = "c") -> dict[str, Any]:
    jobs: list[dict[str, Any]] = client.get(f"/api/c/{name}/jobs").json()["jobs"]
    return jobs[0] if jobs else {}


def _signed_in(client: TestClient, after: str = "/") -> str:
    """Sign the client in through the login form; the page it was sent back to."""
    r = client.post("/login", content=f"token={TOKEN}&next={after}", headers=FORM, follow_redirects=False)
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def test_dedup_runs_as_a_job_behind_the_token(tmp_path: Path, test_data: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", test_data / "warc" / "good.warc.gz")
    with TestClient(create_app({"c": path}, token=TOKEN)) as client:
        assert client.get("/api/c/c").json()["duplicate_clusters"] == 0
        assert client.post("/api/c/c/dedup").status_code == 401
        assert client.get("/api/c/c/jobs").json() == {"collection": "c", "jobs": []}
        started = client.post("/api/c/c/dedup", headers=AUTH)
        assert started.status_code == 202, started.text
        job = started.json()["job"]
        assert job["kind"] == "dedup" and job["argv"] == ["dedup", str(path)] and job["state"] == "running"
        done = _until(lambda: _last_job(client), lambda j: j["state"] != "running")
        assert done["state"] == "finished" and done["returncode"] == 0, done
        assert "$ trawl dedup" in done["output"] and "clusters" in done["output"]
        # the index follows the collection the job changed: the twins are one cluster now
        overview = _until(lambda: client.get("/api/c/c").json(), lambda d: d["duplicate_clusters"] > 0)
        assert overview["documents_in_clusters"] >= 2
        page = client.get("/c/c/jobs")
        assert page.status_code == 200 and "finished" in page.text and "exit status 0" in page.text
        assert "Sign in with the server" in page.text  # not signed in: no forms, a way to be


def test_a_signed_in_page_writes_with_its_forms_only(tmp_path: Path, test_data: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    with TestClient(create_app({"c": path}, token=TOKEN)) as client:
        assert 'action="/c/c/dedup' not in client.get("/c/c/").text
        assert _signed_in(client, "/c/c/") == "/c/c/"
        page = client.get("/c/c/").text
        forms = re.findall(r'action="(/c/c/(?:dedup|reindex)\?csrf=[0-9a-f]+)"', page)
        assert len(forms) == 2 and all(csrf_value(TOKEN) in f for f in forms)
        # the cookie alone, or with another value, writes nothing
        assert client.post("/c/c/reindex", follow_redirects=False).status_code == 401
        assert client.post("/c/c/reindex?csrf=" + "1" * 32, follow_redirects=False).status_code == 401
        reindex = client.post(next(f for f in forms if "reindex" in f), follow_redirects=False)
        assert reindex.status_code == 303 and reindex.headers["location"] == "/c/c/"
        dedup = client.post(next(f for f in forms if "dedup" in f), follow_redirects=False)
        assert dedup.status_code == 303 and dedup.headers["location"] == "/c/c/jobs"
        _until(lambda: _last_job(client), lambda j: j["state"] == "finished")
    # a server without a token says it is read-only, and has no forms
    with TestClient(create_app({"c": path})) as client:
        page = client.get("/c/c/crawl").text
        assert "Read-only" in page and "csrf" not in page
        assert client.post("/c/c/dedup?csrf=" + csrf_value(TOKEN)).status_code == 401


def test_login_goes_back_only_to_a_page_of_this_server(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    with TestClient(create_app({"c": path}, token=TOKEN)) as client:
        for after, expected in (
            ("/c/c/crawl", "/c/c/crawl"),
            ("//evil.example/", "/"),
            ("https://evil.example/", "/"),
            ("/\\evil.example", "/"),
            ("", "/"),
        ):
            assert _signed_in(client, after) == expected, after
        assert 'name="next" value="/c/c/jobs"' in client.get("/login?next=/c/c/jobs").text


def test_a_crawl_started_from_the_monitor_runs_and_is_followed(tmp_path: Path) -> None:
    web = TestWeb(3, hosts=2, pages=30, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    Collection.create(out, overrides=PLAIN).close()
    with ServerThread(web) as server:
        first = _crawl(out, server, [*web.seeds(), "--max-pages", "4"])  # its settings are saved
        assert first.wait(60) == 0, first.stderr.read().decode() if first.stderr else ""
        with TestClient(create_app({"c": out}, token=TOKEN)) as client:
            before = client.get("/api/c/c").json()["documents"]
            start = "/api/c/c/crawl/start"
            for body, why in (
                ({"seeds": ["file:///etc/passwd"]}, "not an http(s) URL"),
                ({"seeds": ["--allow-private"]}, "not an http(s) URL"),
                ({"seeds": []}, "give at least one seed"),
                ({"resume": True, "max_pages": "many"}, "must be a number"),
                ({"resume": True, "max_pages": -1}, "must be above 0"),
            ):
                r = client.post(start, json=body, headers=AUTH)
                assert r.status_code == 400 and why in r.json()["detail"], (body, r.text)
            assert client.post(start, json={"resume": True}).status_code == 401
            # from the monitor page's form, signed in
            _signed_in(client)
            monitor = client.get("/c/c/crawl").text
            action = re.search(r'action="(/c/c/crawl/start\?csrf=[0-9a-f]+)"', monitor)
            assert action, "the signed-in monitor has the start form"
            r = client.post(
                action.group(1), content="seeds=&resume=on&max_pages=40", headers=FORM, follow_redirects=False
            )
            assert r.status_code == 303 and r.headers["location"] == "/c/c/crawl", r.text
            job = _last_job(client)
            assert job["kind"] == "crawl" and job["argv"][-3:] == ["--resume", "--max-pages", "40"]
            # one writer: no second job, no dedup while it runs
            assert client.post("/api/c/c/dedup", headers=AUTH).status_code == 409
            finished = _until(lambda: client.get("/api/c/c/crawl").json(), lambda d: d["state"] == "finished")
            assert finished["pages"] > 0
            done = _until(lambda: _last_job(client), lambda j: j["state"] != "running")
            assert done["state"] == "finished" and done["returncode"] == 0, done["output"]
            after = _until(lambda: client.get("/api/c/c").json(), lambda d: d["documents"] > before)
            assert after["documents"] <= 40 + before


def test_a_job_killed_or_still_running_elsewhere(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    jobs = Jobs(path)
    jobs.dir.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()

    def write(ident: str, pid: int) -> None:
        job = Job(ident, "crawl", ["crawl", "--resume", "-o", str(path)], time.time(), pid=pid)
        (jobs.dir / f"{ident}.json").write_text(json.dumps(job.as_dict()))

    write("20261205T010000-000-crawl", dead.pid)  # killed before it could say how it ended
    assert jobs.listed()[0].state == "gone"
    (jobs.dir / "20261205T010001-000-crawl.json").write_text("{not json")  # ignored
    with TestClient(create_app({"c": path}, token=TOKEN)) as client:
        keys = [d["key"] for d in client.get("/api/c/c/docs").json()["documents"]]
        assert keys and client.get(f"/api/c/c/doc/{keys[0]}").status_code == 200
        write("20261205T010002-000-crawl", os.getpid())  # a live process: started by another server
        listed = client.get("/api/c/c/jobs").json()["jobs"]
        assert [j["state"] for j in listed] == ["running", "gone"]
        r = client.post("/api/c/c/dedup", headers=AUTH)
        assert r.status_code == 409 and "20261205T010002-000-crawl" in r.json()["detail"]
        # the server leaves the collection to the job: what reads the store says why
        r = client.get(f"/api/c/c/doc/{keys[0]}")
        assert r.status_code == 503 and "writes it" in r.json()["detail"]
        assert client.post("/api/c/c/reindex", headers=AUTH).status_code == 503
