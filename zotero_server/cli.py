"""The ``zotero-translate`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from common.errors import ConfigError, ZTError
from common.settings import Settings, load_settings, settings_help


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zotero-translate",
        description="Self-hosted paper translation for Zotero.",
        epilog="Settings (environment variables, or keys of the --config TOML file):\n"
        + settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", help="TOML settings file (default $ZT_CONFIG)")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="the Zotero-facing HTTP server")
    serve.add_argument("--host", help="bind address (default ZT_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default ZT_PORT, 8890)")
    return parser


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from zotero_server.app import create_app

    host = args.host or settings.host
    port = args.port or settings.port
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        settings = load_settings(args.config)
        if args.command == "serve":
            return _serve(settings, args)
    except ConfigError as exc:
        print(f"zotero-translate: {exc}", file=sys.stderr)
        return 2
    except ZTError as exc:
        print(f"zotero-translate: {exc}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
