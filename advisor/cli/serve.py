"""`advisor serve`: the advisor at the table, on a phone (docs/serve.md)."""
from __future__ import annotations

import ipaddress
import secrets
import socket
import threading
import webbrowser

import click

from advisor.cli.options import user_errors

DEFAULT_PORT = 8765


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _address(host: str, port: int) -> str:
    if host in ("0.0.0.0", "::"):
        # the address a phone on the same network reaches this machine at
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(("192.0.2.1", 9))           # no packet is sent: it picks the outgoing interface
                host = s.getsockname()[0]
        except OSError:
            host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets a phone on the same network in (with a token).")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--games", "games_dir", type=click.Path(file_okay=False), default=None,
              help="Directory of the saved games (default ~/.local/share/wyrmspan-advisor/games).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in this machine's browser.")
@user_errors
def serve(host: str, port: int, games_dir: str | None, open_browser: bool) -> None:
    """Serve the advisor's page for a phone: follow a real game, ask 'what now?', play the AI."""
    try:
        import uvicorn

        from advisor.serve.app import make_app
        from advisor.serve.store import default_games_dir
    except ImportError as e:
        raise click.ClickException(f"`advisor serve` needs its extra: pip install 'wyrmspan-advisor[serve]' ({e})")
    token = None if loopback(host) else secrets.token_urlsafe(16)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as e:
        sock.close()
        raise click.UsageError(f"--host {host} --port {port}: cannot listen there "
                               f"({getattr(e, 'strerror', None) or e})") from None
    port = sock.getsockname()[1]
    folder = games_dir or default_games_dir()
    app = make_app(folder, token)
    url = _address(host, port) + "/" + (f"?token={token}" if token else "")
    click.echo(f"advisor serve: open {url}")
    if token:
        click.echo("  (the token is needed by every device; anyone on the network with it can use the page)")
    click.echo(f"  games saved in {folder}; Ctrl-C stops the server")
    if open_browser:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:          # uvicorn raises the Ctrl-C again once it has shut down
        pass
    click.echo("advisor serve: stopped; every game is saved")
