"""The ``zotero-translate`` command line."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from common.errors import ConfigError, InputError, ZTError
from common.paths import default_config_path
from zotero_server import __version__

if TYPE_CHECKING:
    from common.hosts import HostPlan
    from common.progress import ProgressSink
    from common.settings import Settings

# What a command needs is imported where it runs: ``translate`` and ``serve`` start the PDF
# workers' forkserver before they import the settings (pydantic), the web app or the engine,
# and the forkserver preloads this module's imports (``common.forkserver.main_imports``):
# none of them heavy.

#: ``status`` / ``vllm status``: the exit status when vLLM is not serving (down, or unread).
EXIT_VLLM_DOWN = 3
#: Standard output closed under us (``| head``): the shell's code for SIGPIPE.
EXIT_BROKEN_PIPE = 141


def settings_text() -> str:
    """``zotero-translate settings``: where settings come from, then every setting."""
    from common.settings import settings_help

    toml = default_config_path()
    found = "found" if toml.is_file() else "not present"
    return (
        "Settings are environment variables, or keys (lower case, without ZT_) of a TOML file:\n"
        "--config FILE, else $ZT_CONFIG, else the default file "
        f"{toml} ({found}).\n"
        "Environment variables win over the file.\n\n" + settings_help()
    )


class _SettingsAction(argparse.Action):
    """``--help-settings``: print the settings list and exit, like ``--help``."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object, **__: object) -> None:
        print(settings_text())
        parser.exit()


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zotero-translate",
        description="Self-hosted paper translation for Zotero.",
        epilog="Settings (ZT_* variables, config file): `zotero-translate settings` lists them.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--config",
        metavar="FILE",
        help=f"TOML settings file (default $ZT_CONFIG, else {default_config_path()} if present)",
    )
    parser.add_argument(
        "--help-settings", nargs=0, action=_SettingsAction, help="list every setting and exit"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_parser = sub.add_parser

    serve = add_parser("serve", help="the Zotero-facing HTTP server")
    serve.add_argument("--host", help="bind address (default ZT_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default ZT_PORT, 8890)")

    gpu = add_parser("gpu-api", help="the GPU status API (what runs on the GPU)")
    gpu.add_argument("--host", help="bind address (default ZT_GPU_API_HOST, 127.0.0.1)")
    gpu.add_argument("--port", type=int, help="port (default ZT_GPU_API_PORT, 8001)")
    gpu.add_argument(
        "--no-auth", action="store_true", help="serve without ZT_GPU_API_TOKEN (trusted hosts)"
    )

    vllm = add_parser(
        "vllm",
        help="start, stop, sleep, wake or show the translation model's vLLM",
        description="Start, stop, sleep, wake or show vLLM. With several GPU hosts ([[hosts]]):"
        " stop, sleep and status act on every host, start and wake bring up ONE host as a"
        " paper would (none if one is ready; else a sleeping one before a stopped one), and"
        " --gpu-host NAME acts on that host only. Each host's gatekeeper holds: nothing is started"
        " or woken over another tenant. `vllm status` exits 0 when vLLM serves (or sleeps),"
        f" {EXIT_VLLM_DOWN} when it is down.",
    )
    vllm.add_argument("action", choices=["start", "stop", "sleep", "wake", "status"])
    vllm.add_argument(
        "--gpu-host",
        metavar="NAME",
        help="the GPU host to act on (a [[hosts]] name; default: see above)",
    )
    add_parser(
        "status",
        help="GPU decision, who holds the GPU, vLLM health, start lease",
        description="Show the GPU decision, who holds the GPU, vLLM's health and the start"
        f" lease. Exit 0 when vLLM serves (or sleeps), {EXIT_VLLM_DOWN} when it is down,"
        " 2 on bad settings, 1 on other failures.",
    )
    add_parser("settings", help="list every setting (ZT_* variables, config file keys)")

    tr = add_parser(
        "translate",
        help="translate one PDF into <stem>-mono.pdf and <stem>-dual.pdf",
        description="Translate PAPER.pdf. Exit 0 on success, 2 on bad input, 1 on other failures.",
    )
    tr.add_argument("paper", metavar="PAPER.pdf")
    tr.add_argument("--from", dest="source_lang", help="source language (default ZT_SOURCE_LANG)")
    tr.add_argument("--to", dest="target_lang", help="target language (default ZT_TARGET_LANG)")
    tr.add_argument("--out", help="output folder (default: the paper's folder)")
    tr.add_argument("--pages", help="pages to translate, 1-based, e.g. 1-3,7 (default all)")
    tr.add_argument("--mono", action=argparse.BooleanOptionalAction, default=True)
    tr.add_argument("--dual", action=argparse.BooleanOptionalAction, default=True)
    tr.add_argument("--dual-mode", type=str.upper, choices=["LR", "TB"], default="LR")
    tr.add_argument("--translation-first", action="store_true", help="dual: translation first")
    tr.add_argument("--include-references", action="store_true")
    tr.add_argument("--force", action="store_true", help="ignore the translation cache")
    tr.add_argument("--password", help="password of an encrypted PDF")
    tr.add_argument(
        "--wait-gpu",
        type=duration,
        metavar="DURATION",
        help="wait this long for a busy GPU (3h, 90m, 1h30m, 600s; default ZT_GPU_WAIT_S)",
    )
    tr.add_argument(
        "--glossary",
        metavar="FILE",
        help="CSV of source,target[,language] terms translated exactly (on top of ZT_GLOSSARY)",
    )
    tr.add_argument(
        "--ocr",
        choices=["auto", "always", "never"],
        help="read pages by OCR: auto = scanned pages without text only (default ZT_OCR, auto)",
    )
    return parser


def duration(text: str) -> float:
    """Seconds of ``3h``, ``90m``, ``1h30m``, ``45s`` or a plain number of seconds."""
    value = text.strip().lower()
    match = re.fullmatch(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?", value)
    if not value or match is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (say 3h, 90m or 600s)")
    hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from zotero_server.app import create_app
    from zotero_server.connection_limits import server_config
    from zotero_server.data_lock import DataDirLock
    from zotero_server.web_guard import check_bind

    host = args.host or settings.host
    port = args.port or settings.port
    check_bind(settings, host)
    # The bind address is one of the Host names the server answers to; the banner names both.
    settings = settings.model_copy(update={"host": host, "port": port})
    # Before uvicorn: a second server on this data folder exits 2 with one line, not a trace.
    with DataDirLock.acquire(settings.data_dir, f"http://{host}:{port}") as lock:
        app = create_app(settings, data_lock=lock)
        uvicorn.Server(server_config(app, settings, host, port)).run()
    return 0


async def _manage(settings: Settings, args: argparse.Namespace) -> int:
    from vllm_manager.state import VLLMState
    from zotero_server import vllm_commands as commands

    action = getattr(args, "action", None)
    several = len(settings.hosts) > 1
    hosts = commands.chosen_hosts(settings, getattr(args, "gpu_host", None))
    if action in ("start", "wake"):
        from zotero_server.progress_display import ProgressDisplay

        display = ProgressDisplay(sys.stderr)
        try:
            line = await _bring_up(action, settings, hosts, several, display)
        finally:
            display.close()
        print(line)
        return 0
    if action in ("stop", "sleep"):
        failed = []
        for plan in hosts:
            prefix = f"{plan.name}: " if several else ""
            try:
                print(prefix + await _put_down(action, plan.settings, several))
            except ZTError as exc:
                if not several:
                    raise
                failed.append(plan.name)
                print(f"{prefix}{exc}", file=sys.stderr)
        if failed:
            raise ZTError(f"vllm {action} failed on {', '.join(failed)}")
        return 0
    one = hosts[0].settings
    snapshot, advice = await commands.status_with_advice(one)
    print(commands.format_status(snapshot, vllm_only=action == "status", advice=advice))
    serving = snapshot.vllm.healthy or snapshot.state is VLLMState.ASLEEP
    if several and (action is None or len(hosts) > 1):
        rows = await commands.hosts_status(settings)
        print(commands.format_hosts(rows))
        serving = any(row["state"] in ("ready", "draining", "asleep") for row in rows)
    if action != "status":  # `zotero-translate status`: the faces translations get too
        from translation.render.faces import installed

        print(f"fonts    {installed(one.font_dir)}")
    return 0 if serving else EXIT_VLLM_DOWN


async def _bring_up(
    action: str, settings: Settings, hosts: list[HostPlan], several: bool, display: ProgressSink
) -> str:
    """``vllm start|wake``: the named host, or (several hosts, no ``--host``) one as a paper
    would bring it up; the line to print."""
    from zotero_server import vllm_commands as commands

    if several and len(hosts) > 1:
        plan, done = await commands.bring_up_one(settings, display, asleep_only=action == "wake")
        if done:
            return done
        hosts = [plan]
    if action == "start":
        line = await commands.vllm_start(hosts[0].settings, display)
    else:
        line = await commands.vllm_wake(hosts[0].settings, display)
    return f"{hosts[0].name}: {line}" if several else line


async def _put_down(action: str, settings: Settings, several: bool) -> str:
    from common.settings import ManagerKind
    from zotero_server import vllm_commands as commands

    if action == "stop":
        if settings.manager is ManagerKind.NONE and not several:
            raise ConfigError(
                "ZT_MANAGER=none: zotero-translate never starts or stops vLLM"
                " (set ZT_MANAGER=local or remote)"
            )
        return await commands.vllm_stop(settings)
    return await commands.vllm_sleep(settings)


def _start_pdf_workers() -> None:
    """Start the PDF workers' forkserver now, in a thread: it imports the engine in its own
    process (a second or more) while this one imports the rest of the command's modules (the
    web app's, for ``serve``: an upload just after the start found the forkserver still
    importing, and its check waited for it)."""
    import threading

    from common.forkserver import warm_up

    threading.Thread(target=warm_up, name="pdf-warm-up", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _main(argv)
        finally:  # --help's SystemExit too: flush here, where a closed pipe is caught
            sys.stdout.flush()
    except BrokenPipeError:
        # `zotero-translate status | head`: the reader left; say nothing more, and keep the
        # interpreter's last flush of the dead pipe from printing a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    args = _build_parser().parse_args(argv)
    if args.command == "settings":  # needs no valid settings: it is how to find the bad one
        print(settings_text())
        return 0
    if args.command in ("translate", "serve"):  # the engine imported meanwhile, elsewhere
        _start_pdf_workers()
    if args.command == "serve":
        # The SDK of the LLM's requests (a second of CPU on a busy machine) is imported beside
        # the web app, not after it: an upload just after the start competed with it.
        from translation.model.llm import import_sdk_in_background

        import_sdk_in_background()
    from common.settings import load_settings, unknown_environment

    try:
        settings = load_settings(args.config)
        for name in unknown_environment():
            print(f"zotero-translate: warning: {name} is not a setting (ignored)", file=sys.stderr)
        if args.command == "serve":
            return _serve(settings, args)
        if args.command == "gpu-api":
            from vllm_manager.gpu_api import serve_gpu_api

            serve_gpu_api(
                settings,
                args.host or settings.gpu_api_host,
                args.port or settings.gpu_api_port,
                no_auth=args.no_auth,
            )
            return 0
        if args.command in ("vllm", "status"):
            return asyncio.run(_manage(settings, args))
        if args.command == "translate":
            from common.forkserver import stop
            from zotero_server.translate_command import run_translate

            try:
                return asyncio.run(run_translate(settings, args))
            finally:
                stop()  # its workers are closed: nothing of the command outlives it
    except (ConfigError, InputError) as exc:
        print(f"zotero-translate: {exc}", file=sys.stderr)
        return 2
    except ZTError as exc:
        print(f"zotero-translate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("zotero-translate: interrupted", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
