"""Build ARX's core from a source tree the user provides, with javac, into a cache directory.

Nothing of ARX is part of microanon: the user fetches ARX's sources (``git clone
https://github.com/arx-deidentifier/arx`` and ``git checkout v3.9.2``) and names the tree with
``--arx-src``. :func:`build` compiles ``src/main`` (the library ``org.deidentifier.arx``, not the
GUI) against the jars of the ``lib.jars`` file set of the tree's ``build.xml`` (ARX's own ant
build, the one its library jar is built with) found under ``lib/ant``, plus microanon's driver
``benchmarks/peers/ArxBench.java``, into ``<cache>/<version>-<hash of the sources>/``
(default cache ``~/.cache/microanon-bench/arx``, outside the repository). A second call with the
same tree reuses the build.

Substitutions. Some of the jars ``build.xml`` lists may be missing from a tree (a copy fetched
without its large files). What the core needs of the three absent from the tree this was written
with; each library's stand-ins (:data:`STAND_INS`) are compiled only when no jar on the class path
holds the library:

- ``pdfbox-app-2.0.1.jar`` (Apache PDFBox): imported by three classes of ARX's PDF certificate
  (``certificate/ARXCertificate``, ``certificate/elements/ElementText``,
  ``certificate/resources/Watermark``), which anonymization never loads. Stand-ins:
  ``PDDocument``, ``PDFont`` and ``Overlay`` with the members those classes call, each throwing
  ``UnsupportedOperationException``. Rendering a certificate then fails; nothing else changes.
- ``hadoop-core-1.2.1.jar`` (Apache Hadoop): javac needs ``org.apache.hadoop.io.Writable``, a
  supertype of the Mahout classifiers that ARX's classification-based utility analysis
  (``aggregates/classification``) builds. Stand-in: that interface (two abstract methods). The
  analysis is never run by the benchmark (data from memory, k/ℓ/t, Loss); if it were, Mahout
  would fail on the other Hadoop classes it loads.
- ``poi-ooxml-schemas-3.10-FINAL-20140208.jar`` (Excel 2007 import): javac does not need it and
  the benchmark never imports a spreadsheet; left out, not substituted.

Any other missing jar is reported; javac then says whether the core needs it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "peers" / "ArxBench.java"
DEFAULT_CACHE = Path.home() / ".cache" / "microanon-bench" / "arx"
MARKER = ".microanon-arx-build"

#: Stand-ins (see the module docstring): library -> (a class its jar holds, {source file: text}).
#: A library's stand-ins are compiled only when no jar on the class path holds that class.
STAND_INS: dict[str, tuple[str, dict[str, str]]] = {
    "Hadoop (Writable: stand-in)": (
        "org/apache/hadoop/io/Writable.class",
        {
            "org/apache/hadoop/io/Writable.java": """
package org.apache.hadoop.io;
/** Stand-in: a supertype of Mahout's classifiers (ARX's classification analysis only). */
public interface Writable {
    void write(java.io.DataOutput out) throws java.io.IOException;
    void readFields(java.io.DataInput in) throws java.io.IOException;
}
""",
        },
    ),
    "PDFBox (PDDocument, PDFont, Overlay: stand-ins)": (
        "org/apache/pdfbox/pdmodel/PDDocument.class",
        {
            "org/apache/pdfbox/pdmodel/PDDocument.java": """
package org.apache.pdfbox.pdmodel;
/** Stand-in: ARX's PDF certificate only; never used by anonymization. */
public class PDDocument implements java.io.Closeable {
    private static UnsupportedOperationException absent() {
        return new UnsupportedOperationException("PDFBox is not on the class path");
    }
    public static PDDocument load(java.io.File file) { throw absent(); }
    public static PDDocument load(java.io.InputStream stream) { throw absent(); }
    public void save(java.io.OutputStream stream) { throw absent(); }
    public void save(java.io.File file) { throw absent(); }
    public void close() { throw absent(); }
}
""",
            "org/apache/pdfbox/pdmodel/font/PDFont.java": """
package org.apache.pdfbox.pdmodel.font;
/** Stand-in: ARX's PDF certificate only; never used by anonymization. */
public abstract class PDFont {
}
""",
            "org/apache/pdfbox/multipdf/Overlay.java": """
package org.apache.pdfbox.multipdf;
/** Stand-in: ARX's PDF certificate only; never used by anonymization. */
public class Overlay {
    public enum Position { FOREGROUND, BACKGROUND }
    private static UnsupportedOperationException absent() {
        return new UnsupportedOperationException("PDFBox is not on the class path");
    }
    public void setInputPDF(org.apache.pdfbox.pdmodel.PDDocument document) { throw absent(); }
    public void setAllPagesOverlayPDF(org.apache.pdfbox.pdmodel.PDDocument document) {
        throw absent();
    }
    public void setOverlayPosition(Position position) { throw absent(); }
    public org.apache.pdfbox.pdmodel.PDDocument overlay(java.util.Map<Integer, String> map) {
        throw absent();
    }
}
""",
        },
    ),
}


class BuildError(RuntimeError):
    """ARX cannot be built from the given tree (the message says why)."""


@dataclass(frozen=True)
class ArxBuild:
    """A built ARX: its version, the java class path and what was substituted or left out."""

    version: str
    classpath: str
    directory: Path
    substituted: tuple[str, ...]
    missing: tuple[str, ...]


def _check_tree(src: Path) -> None:
    if not (src / "src" / "main" / "org" / "deidentifier" / "arx" / "ARXAnonymizer.java").is_file():
        raise BuildError(f"--arx-src {src}: no src/main/org/deidentifier/arx/ARXAnonymizer.java")
    if not (src / "build.xml").is_file():
        raise BuildError(f"--arx-src {src}: no build.xml (ARX's ant build lists the core's jars)")


def version(src: Path) -> str:
    """ARX's version from the tree's ``pom.xml`` (``unknown`` without one)."""
    pom = src / "pom.xml"
    if pom.is_file():
        m = re.search(r"<version>([^<]+)</version>", pom.read_text(encoding="utf-8"))
        if m:
            return m[1].strip()
    return "unknown"


def core_jars(build_xml: str) -> list[str]:
    """The jar file names of the ``lib.jars`` file set of ARX's ``build.xml``."""
    m = re.search(r'<fileset\s+id="lib\.jars".*?</fileset>', build_xml, flags=re.DOTALL)
    if m is None:
        raise BuildError('build.xml has no <fileset id="lib.jars">')
    return re.findall(r'<filename\s+name="\*\*/([^"]+)"', m[0])


def _find_jars(src: Path, names: list[str]) -> tuple[list[Path], list[str]]:
    found, missing = [], []
    for name in names:
        hits = [p for p in sorted((src / "lib" / "ant").rglob(name)) if zipfile.is_zipfile(p)]
        if hits:
            found.append(hits[0])
        else:
            missing.append(name)
    return found, missing


def _has_class(jars: list[Path], entry: str) -> bool:
    for jar in jars:
        with zipfile.ZipFile(jar) as z:
            if entry in z.namelist():
                return True
    return False


def _sources_hash(src: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted((src / "src" / "main").rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(src)).encode())
            digest.update(path.read_bytes())
    for extra in (DRIVER, Path(__file__)):
        digest.update(extra.read_bytes())
    return digest.hexdigest()[:12]


def _javac(args: list[str], what: str) -> None:
    javac = shutil.which("javac")
    if javac is None:
        raise BuildError("javac not found: a JDK (8 or later) is needed to build ARX")
    r = subprocess.run([javac, *args], capture_output=True, text=True, check=False)
    if r.returncode:
        errors = [ln for ln in r.stderr.splitlines() if "error:" in ln]
        raise BuildError(f"javac failed on {what}: {errors[0] if errors else r.stderr[-300:]}")


def build(src: Path, cache: Path = DEFAULT_CACHE, log: Callable[[str], object] = print) -> ArxBuild:
    """Compile ARX's core and the driver from ``src`` into ``cache`` (reused when up to date).

    Parameters
    ----------
    src : Path
        An ARX source tree (a clone of github.com/arx-deidentifier/arx at a release tag).
    cache : Path
        Where builds are kept, one directory per version and source hash.
    log : callable
        Progress messages.

    Returns
    -------
    ArxBuild

    Raises
    ------
    BuildError
        Not an ARX tree, no JDK, or javac fails.
    """
    src = src.expanduser().resolve()
    _check_tree(src)
    ver = version(src)
    jars, missing = _find_jars(src, core_jars((src / "build.xml").read_text(encoding="utf-8")))
    out = cache.expanduser() / f"{ver}-{_sources_hash(src)}"
    classes, stand_ins, driver = out / "classes", out / "stand-ins", out / "driver"
    substituted = [name for name, (probe, _) in STAND_INS.items() if not _has_class(jars, probe)]
    cp = [str(classes), *map(str, jars), *([str(stand_ins)] if substituted else [])]
    if not (out / "BUILT").exists():
        if out.exists():
            if not (out / MARKER).exists():
                raise BuildError(f"{out} exists and was not written by this script")
            shutil.rmtree(out)  # an interrupted build of ours: start again
        log(f"building ARX {ver} from {src} into {out}; jars missing: {', '.join(missing) or '-'}")
        out.mkdir(parents=True)
        (out / MARKER).write_text("built by microanon's benchmarks/arx_build.py\n", "utf-8")
        if substituted:
            _compile_stand_ins(stand_ins, substituted)
        main = src / "src" / "main"
        sources = out / "sources.txt"
        sources.write_text("\n".join(str(p) for p in sorted(main.rglob("*.java"))), "utf-8")
        classes.mkdir()
        flags = ["-nowarn", "-encoding", "UTF-8", "-proc:none"]
        _javac(
            [*flags, "-d", str(classes), "-cp", os.pathsep.join(cp[1:]), f"@{sources}"], "src/main"
        )
        for path in main.rglob("*"):
            if path.is_file() and path.suffix != ".java":  # resources, as build.xml copies them
                target = classes / path.relative_to(main)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        driver.mkdir()
        _javac([*flags, "-d", str(driver), "-cp", os.pathsep.join(cp), str(DRIVER)], DRIVER.name)
        (out / "BUILT").write_text(ver, encoding="utf-8")
    return ArxBuild(
        ver, os.pathsep.join([*cp, str(driver)]), out, tuple(substituted), tuple(missing)
    )


def _compile_stand_ins(folder: Path, libraries: list[str]) -> None:
    files = []
    for library in libraries:
        for rel, text in STAND_INS[library][1].items():
            path = folder / "src" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.lstrip(), encoding="utf-8")
            files.append(str(path))
    _javac(["-nowarn", "-d", str(folder), *files], "the stand-ins")
