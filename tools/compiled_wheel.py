"""The compiled wheel from the pure one and ``make core``'s build (``make dist``).

``make core`` compiles the core in place (``setup.py build_ext --inplace``: src/seep/*.so, the
same extensions, flags and sources that ``setup.py bdist_wheel`` compiles). A compiled wheel is
the pure wheel's files plus those extension modules, tagged for this interpreter and platform;
this script writes it so that ``make test`` does not pay mypyc's minutes twice. It refuses
extension modules older than a compiled source (``src/seep/.compiled`` is ``make core``'s stamp).
``SEEP_DIST_COMPILE=1 make dist`` builds the compiled wheel through setup.py from scratch instead,
as a release job does (docs/releasing.md).

    python tools/compiled_wheel.py dist/seep_game-0.2.0-py3-none-any.whl dist/
"""

from __future__ import annotations

import ast
import base64
import hashlib
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "seep"


def compiled_modules() -> list[str]:
    """setup.py's ``COMPILED_MODULES`` (the one list of them), read without running it."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and getattr(node.targets[0], "id", "") == "COMPILED_MODULES"
        ):
            return list(ast.literal_eval(node.value))
    raise SystemExit("setup.py has no COMPILED_MODULES")


def extension_files() -> list[Path]:
    """The in-place extension modules, checked to be newer than their sources."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    stamp = PACKAGE / ".compiled"
    sources = [PACKAGE / f"{m}.py" for m in compiled_modules()] + [ROOT / "setup.py"]
    if not stamp.exists() or any(s.stat().st_mtime > stamp.stat().st_mtime for s in sources):
        raise SystemExit("the compiled core is older than its sources: run make core")
    found = sorted(PACKAGE.rglob(f"*{suffix}"))
    wanted = {PACKAGE / f"{m}{suffix}" for m in compiled_modules()}
    if not wanted <= set(found):
        missing = sorted(str(p.relative_to(ROOT)) for p in wanted - set(found))
        raise SystemExit(f"no compiled core to pack ({', '.join(missing[:3])} ...)")
    return found


def wheel_tag() -> str:
    """``cp311-cp311-linux_x86_64``: what setuptools tags a wheel built here with."""
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = impl + (sys.abiflags if hasattr(sys, "abiflags") else "")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{abi}-{platform}"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def pack(pure: Path, out_dir: Path) -> Path:
    """Write the compiled wheel next to ``pure``'s name and return its path."""
    extensions = extension_files()
    name, version, _tag = pure.name.removesuffix(".whl").split("-", 2)
    tag = wheel_tag()
    target = out_dir / f"{name}-{version}-{tag}.whl"
    dist_info = f"{name}-{version}.dist-info"
    records: list[str] = []
    with zipfile.ZipFile(pure) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename in (f"{dist_info}/RECORD", f"{dist_info}/WHEEL"):
                continue
            data = src.read(info)
            dst.writestr(info, data)
            records.append(_record_line(info.filename, data))
        for path in extensions:
            arcname = path.relative_to(ROOT / "src").as_posix()
            data = path.read_bytes()
            info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED  # a bare ZipInfo would store it
            info.external_attr = 0o755 << 16
            dst.writestr(info, data)
            records.append(_record_line(arcname, data))
        wheel = src.read(f"{dist_info}/WHEEL").decode()
        wheel = wheel.replace("Root-Is-Purelib: true", "Root-Is-Purelib: false")
        lines = [ln for ln in wheel.splitlines() if ln and not ln.startswith("Tag:")]
        wheel_data = ("\n".join([*lines, f"Tag: {tag}"]) + "\n").encode()
        dst.writestr(f"{dist_info}/WHEEL", wheel_data)
        records.append(_record_line(f"{dist_info}/WHEEL", wheel_data))
        records.append(f"{dist_info}/RECORD,,")
        dst.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return target


def main(argv: list[str]) -> int:
    """``compiled_wheel.py PURE_WHEEL OUT_DIR``: write the compiled wheel, print its path."""
    if len(argv) != 2:
        raise SystemExit(__doc__)
    print(pack(Path(argv[0]), Path(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
