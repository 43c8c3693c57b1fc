"""The workbench's web application: the JSON API and the pages (see docs/workbench.md).

Every answer is JSON except the pages and the zip downloads; an error is
``{"error": "<one line>", "field": "<column or parameter or null>"}`` with a 4xx status, and a
refused request changes nothing. The heavy work (reading, profiling, risk) runs on worker
threads, runs on the workbench's own run thread.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...core.errors import MicroanonError
from ...core.reading import ReadOptions, column_na_values_text
from ...measures import REGIONS
from ..io import json_plain
from . import catalog
from .datasets import apply_schema, built_hierarchy
from .downloads import public_zip, zip_directory
from .errors import RequestError
from .guard import LOOPBACK_HOSTS, LocalOnly
from .hierarchies import preview
from .runs import CONFIG_DIR, RELEASE_DIR
from .state import MAX_DATASETS, Workbench, safe_name
from .summaries import compare_rows, population_options, risk_profile

__all__ = ["MAX_UPLOAD", "STATIC", "VALUES_MAX", "create_app"]

#: Largest upload in bytes (a larger one is refused with 413).
MAX_UPLOAD = 512 * 1024**2
#: The pages.
STATIC = Path(__file__).parent / "static"
#: Distinct values of a column listed at most (``GET /api/datasets/{id}/values``).
VALUES_MAX = 1000
#: Runs compared side by side at most.
COMPARE_MAX = 4
_READ_FIELDS = ("sep", "encoding", "decimal", "quotechar", "sheet")
_CHUNK = 1024**2
#: Bytes of a form beyond its file (boundaries, headers, the reading options).
_FORM_OVERHEAD = 64 * 1024


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(json_plain(data), status_code=status)


async def _body(request: Request) -> Any:
    try:
        return json.loads(await request.body() or b"null")
    except ValueError:
        raise RequestError("the request body is not JSON", None) from None


def _bench(request: Request) -> Workbench:
    return request.app.state.workbench


def _read_options(form: Any) -> ReadOptions:
    given: dict[str, Any] = {k: form.get(k) or None for k in _READ_FIELDS}
    na = form.get("na_values")
    if na:
        given["na_values"] = [v.strip() for v in str(na).split(",") if v.strip()]
    own = form.get("column_na_values")  # (COLUMN=V1,V2; COLUMN=V1: a column's own markers)
    if own:
        parts = [p for p in str(own).split(";") if p.strip()]
        try:
            given["column_na_values"] = column_na_values_text(parts, "column_na_values")
        except MicroanonError as exc:
            raise RequestError(str(exc), "column_na_values") from None
    try:
        return ReadOptions.from_mapping(given)
    except MicroanonError as exc:
        field = str(exc).split(":")[1].strip() if str(exc).count(":") > 1 else None
        raise RequestError(str(exc), field) from None


def _too_large(request: Request, limit: int) -> None:
    """413 before reading a body whose announced length is above the limit."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit + _FORM_OVERHEAD:
        raise RequestError(f"upload larger than the limit of {limit:,} bytes", "file", 413)


async def _form(request: Request) -> tuple[UploadFile, Any]:
    """The uploaded file of a multipart form (field ``file``) and the form."""
    _too_large(request, request.app.state.max_upload)
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise RequestError("send the file as multipart/form-data (field 'file')", "file")
    form = await request.form(max_files=1, max_fields=20)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise RequestError("give the file as the form field 'file'", "file")
    return upload, form


async def _save(upload: UploadFile, path: Path, limit: int) -> None:
    """Copy an upload to ``path``, refusing one above ``limit`` bytes (nothing kept then)."""
    size = 0
    with open(path, "wb") as out:
        while chunk := await upload.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                break
            out.write(chunk)
    if size > limit:
        path.unlink()
        raise RequestError(
            f"file {upload.filename}: larger than the limit of {limit:,} bytes", "file", 413
        )


async def add_dataset(request: Request) -> Response:
    bench, limit = _bench(request), request.app.state.max_upload
    bench.room()  # before the upload is read
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        upload, form = await _form(request)
        read = _read_options(form)
        path = bench.new_file("data", upload.filename or "data.csv")
        await _save(upload, path, limit)
        try:
            ds = await run_in_threadpool(bench.add_file, path, path.name, read)
        except BaseException:
            path.unlink()
            raise
    else:
        body = await _body(request)
        if not isinstance(body, dict) or not isinstance(body.get("bundled"), str):
            raise RequestError('upload a file (multipart) or give {"bundled": "<name>"}', "bundled")
        ds = await run_in_threadpool(bench.add_bundled, body["bundled"])
    return _json(bench.dataset_json(ds), 201)


async def list_datasets(request: Request) -> Response:
    return _json(_bench(request).dataset_list())


async def remove_dataset(request: Request) -> Response:
    await run_in_threadpool(_bench(request).remove_dataset, request.path_params["id"])
    return Response(status_code=204)


async def get_dataset(request: Request) -> Response:
    bench = _bench(request)
    return _json(bench.dataset_json(bench.dataset(request.path_params["id"])))


async def put_schema(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    body = await _body(request)
    answer = partial(bench.dataset_json, ds)  # made before a change sent meanwhile applies
    return _json(await run_in_threadpool(apply_schema, ds, body, bench.uploads, answer))


async def hierarchy_preview(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    body = await _body(request)
    if not isinstance(body, dict) or not isinstance(body.get("column"), str):
        raise RequestError('give {"column", "hierarchy"}', "column")
    column = body["column"]

    def work() -> dict[str, Any]:
        built = built_hierarchy(ds, column, body.get("hierarchy"), bench.uploads)
        kind = ds.columns[column].kind
        try:
            return preview(built, ds.frame, kind, ds.missing(column) == "value")
        except MicroanonError as exc:
            raise RequestError(f"hierarchy of {column!r}: {exc}", column) from None

    return _json(await run_in_threadpool(work))


async def column_values(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    column = request.query_params.get("column", "")
    return _json(await run_in_threadpool(ds.value_counts, column, VALUES_MAX))


async def add_hierarchy(request: Request) -> Response:
    bench, limit = _bench(request), request.app.state.max_upload
    upload, _ = await _form(request)
    data = await upload.read(limit + 1)
    if len(data) > limit:
        raise RequestError(
            f"file {upload.filename}: larger than the limit of {limit:,} bytes", "file", 413
        )
    return _json(bench.add_hierarchy(data, upload.filename or "hierarchy.csv"), 201)


async def bundled(request: Request) -> Response:
    from ...core.bundled import BUNDLED_HIERARCHIES
    from ...datasets import adult_hierarchies
    from ...datasets import list_datasets as bundled_datasets

    return _json(
        {
            "datasets": [
                {"name": d["name"], "rows": d["rows"], "description": d["description"]}
                for d in bundled_datasets()
            ],
            "hierarchies": [*adult_hierarchies(), *BUNDLED_HIERARCHIES],
            "hierarchy_help": {
                **{name: f"the Adult column {name} (ARX's)" for name in adult_hierarchies()},
                **{name: b.what for name, b in BUNDLED_HIERARCHIES.items()},
            },
            "regions": dict(REGIONS),
        }
    )


async def risk(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    bench.quasi(ds)  # (400 without any)
    population = population_options(request.query_params)
    schema = ds.roles_schema()
    return _json(await run_in_threadpool(risk_profile, ds.frame, schema, population))


async def methods(request: Request) -> Response:
    return _json(await run_in_threadpool(catalog.methods))


async def models(request: Request) -> Response:
    return _json(await run_in_threadpool(catalog.models))


async def get_steps(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    return _json(await run_in_threadpool(bench.steps, ds))


def _position(value: Any, count: int, name: str) -> int:
    """A step's place, 1 to ``count``, as the request gave it (400 otherwise)."""
    if count < 1:
        raise RequestError(f"{name}: no step is chosen yet", name)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= count:
        raise RequestError(f"{name}: give a step's place, 1 to {count}", name)
    return value


async def _change_steps(request: Request, edit: Any) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    return _json(await run_in_threadpool(bench.change_steps, ds, edit))


async def add_step(request: Request) -> Response:
    body = await _body(request)
    if not isinstance(body, dict) or not isinstance(body.get("method"), str):
        raise RequestError('give {"method", "params", "position"}', "method")
    unknown = sorted(set(body) - {"method", "params", "position"})
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(unknown)}", unknown[0])
    step = {"method": body["method"], "params": body.get("params") or {}}

    def edit(steps: list[dict[str, Any]]) -> list[Any]:
        at = _position(body.get("position", len(steps) + 1), len(steps) + 1, "position")
        return [*steps[: at - 1], step, *steps[at - 1 :]]

    return await _change_steps(request, edit)


async def remove_step(request: Request) -> Response:
    index = request.path_params["index"]

    def edit(steps: list[dict[str, Any]]) -> list[Any]:
        at = _position(index, len(steps), "index")
        return [*steps[: at - 1], *steps[at:]]

    return await _change_steps(request, edit)


async def move_step(request: Request) -> Response:
    body = await _body(request)
    if not isinstance(body, dict) or set(body) != {"from", "to"}:
        raise RequestError('give {"from", "to"}: the step\'s place and its new place', "from")

    def edit(steps: list[dict[str, Any]]) -> list[Any]:
        start = _position(body["from"], len(steps), "from")
        end = _position(body["to"], len(steps), "to")
        moved = [*steps[: start - 1], *steps[start:]]
        return [*moved[: end - 1], steps[start - 1], *moved[end - 1 :]]

    return await _change_steps(request, edit)


async def undo_step(request: Request) -> Response:
    def edit(steps: list[dict[str, Any]]) -> list[Any]:
        if not steps:
            raise RequestError("no step to undo", "steps")
        return steps[:-1]

    return await _change_steps(request, edit)


async def start_run(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    body = await _body(request)
    run = await run_in_threadpool(bench.start_run, ds, body)
    return _json({"id": run.id}, 202)


async def get_run(request: Request) -> Response:
    return _json(_bench(request).run(request.path_params["id"]).to_json())


async def stop_run(request: Request) -> Response:
    run, message = _bench(request).stop_run(request.path_params["id"])
    return _json({"message": message, "run": run.to_json()}, 202)


async def delete_run(request: Request) -> Response:
    _bench(request).delete_run(request.path_params["id"])
    return Response(status_code=204)


async def compare(request: Request) -> Response:
    bench = _bench(request)
    ds = bench.dataset(request.path_params["id"])
    ids = [r for r in request.query_params.get("runs", "").split(",") if r]
    if not ids or len(ids) > COMPARE_MAX:
        raise RequestError(f"runs: give 1 to {COMPARE_MAX} run ids, comma-separated", "runs")
    runs = [bench.run(r) for r in ids]
    other = [r.id for r in runs if r.dataset != ds.id]
    if other:
        raise RequestError(f"runs: {other[0]} is a run of another data set", "runs")
    return _json(
        {"runs": [r.to_json() for r in runs], "rows": compare_rows([r.result for r in runs])}
    )


def _download(part: str, media: str = "application/zip") -> Any:
    async def endpoint(request: Request) -> Response:
        run = _bench(request).run(request.path_params["id"])
        if part == "config":
            directory = run.directory / CONFIG_DIR
        else:
            if run.status != "done":
                raise RequestError(f"run {run.id} is {run.status}: nothing to download", "id", 409)
            directory = run.directory / RELEASE_DIR / part
        make = public_zip if part == "public" else zip_directory
        data = await run_in_threadpool(make, directory)
        name = f"{safe_name(run.label, run.id)}-{part}.zip"
        return Response(
            data,
            media_type=media,
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    return endpoint


async def index(request: Request) -> Response:
    page = STATIC / "index.html"
    if not page.is_file():
        raise RequestError("the workbench's pages are not installed", None, 404)
    return FileResponse(page)


async def _refused(request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestError):
        return _json({"error": str(exc), "field": exc.field}, exc.status)
    return _json({"error": " ".join(str(exc).split()), "field": None}, 400)


def create_app(
    workdir: str | Path | None = None,
    *,
    max_upload: int = MAX_UPLOAD,
    max_datasets: int = MAX_DATASETS,
    preload: tuple[Path, ReadOptions] | None = None,
    hosts: Collection[str] = LOOPBACK_HOSTS,
) -> Starlette:
    """The workbench's starlette application.

    Parameters
    ----------
    workdir : path, optional
        Where its private work directory is made (default: the system's temporary directory);
        the work directory, and nothing else, is deleted when the application shuts down.
    max_upload : int
        Largest upload in bytes.
    max_datasets : int
        Data sets held at most (:data:`~.state.MAX_DATASETS`); loading one more is refused
        (409) until one is removed.
    preload : (path, ReadOptions), optional
        A data file to load at start (``microanon app DATA``); it is read, never written.
    hosts : collection of str
        The host names a request's ``Host`` may give (default:
        :data:`~microanon.apps.workbench.guard.LOOPBACK_HOSTS`; ``microanon app`` adds its
        ``--allow-host`` names). Any other is refused, and so are changes requested from
        another origin (:class:`~.guard.LocalOnly`).

    Raises
    ------
    InputError
        A preloaded file that does not parse.
    """
    bench = Workbench(workdir, max_datasets)
    if preload is not None:
        try:
            bench.add_file(preload[0], preload[0].name, preload[1])
        except BaseException:
            bench.close()
            raise

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        bench.close()

    routes = [
        Route("/", index),
        Route("/api/datasets", add_dataset, methods=["POST"]),
        Route("/api/datasets", list_datasets, methods=["GET"]),
        Route("/api/datasets/{id}", get_dataset, methods=["GET"]),
        Route("/api/datasets/{id}", remove_dataset, methods=["DELETE"]),
        Route("/api/datasets/{id}/schema", put_schema, methods=["PUT"]),
        Route("/api/datasets/{id}/hierarchy-preview", hierarchy_preview, methods=["POST"]),
        Route("/api/datasets/{id}/risk", risk, methods=["GET"]),
        Route("/api/datasets/{id}/values", column_values, methods=["GET"]),
        Route("/api/datasets/{id}/steps", get_steps, methods=["GET"]),
        Route("/api/datasets/{id}/steps", add_step, methods=["POST"]),
        Route("/api/datasets/{id}/steps/undo", undo_step, methods=["POST"]),
        Route("/api/datasets/{id}/steps/move", move_step, methods=["POST"]),
        Route("/api/datasets/{id}/steps/{index:int}", remove_step, methods=["DELETE"]),
        Route("/api/datasets/{id}/runs", start_run, methods=["POST"]),
        Route("/api/datasets/{id}/compare", compare, methods=["GET"]),
        Route("/api/hierarchies", add_hierarchy, methods=["POST"]),
        Route("/api/bundled", bundled, methods=["GET"]),
        Route("/api/methods", methods, methods=["GET"]),
        Route("/api/models", models, methods=["GET"]),
        Route("/api/runs/{id}", get_run, methods=["GET"]),
        Route("/api/runs/{id}", delete_run, methods=["DELETE"]),
        Route("/api/runs/{id}/stop", stop_run, methods=["POST"]),
        Route("/api/runs/{id}/public.zip", _download("public"), methods=["GET"]),
        Route("/api/runs/{id}/internal.zip", _download("internal"), methods=["GET"]),
        Route("/api/runs/{id}/config.zip", _download("config"), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={MicroanonError: _refused},
        middleware=[Middleware(LocalOnly, hosts=hosts)],
    )
    app.state.workbench = bench
    app.state.max_upload = max_upload
    return app
