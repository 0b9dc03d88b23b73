"""Progress bars for long calls: a bar with rate and ETA on a terminal's stderr, or an HTML bar
updated in place in Jupyter; nothing elsewhere (a pipe, a log file) or with ``progress=False``.

The compiled library reports progress from its worker threads to a recorder that only stores the
latest (task, done, total) under a mutex; a Python thread polls it while the call runs with the
GIL released, and draws. Progress never changes a result: the recorder only reads counters.

    with reporting(progress):
        out = _assay.soak_run(...)

Work done in Python (a loop over fits) counts its steps itself:

    with counting(progress, "soak", len(jobs)) as step:
        for job in jobs:
            ...
            step()
"""
import contextlib
import sys
import threading
import time

from . import _assay

__all__ = ["reporting", "counting"]

_POLL_SECONDS = 0.1
# Rate and ETA are shown once this much time has passed (earlier rates are noise).
_RATE_AFTER_SECONDS = 0.5
_active = threading.Lock()  # held while a bar is drawn: nested long calls draw none of their own


def _short_count(value):
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= limit:
            return f"{value / limit:.3g}{suffix}"
    return f"{value:.3g}"


def _short_duration(seconds):
    if not seconds < 1e9:
        return "never"
    if seconds < 60:
        return f"{seconds:.0f}s"
    t = int(seconds)
    if seconds < 3600:
        return f"{t // 60}m{t % 60:02d}s"
    return f"{t // 3600}h{t // 60 % 60:02d}m"


def describe(task, done, total, seconds):
    """'bootstrap 45% (900/2000) 812/s, ETA 1s': the text of a bar (rate and ETA after
    _RATE_AFTER_SECONDS)."""
    fraction = done / total if total else 1.0
    text = f"{task} {100 * fraction:3.0f}% ({done}/{total})"
    if seconds >= _RATE_AFTER_SECONDS and done > 0:
        rate = done / seconds
        text += f" {_short_count(rate)}/s, ETA {_short_duration((total - done) / rate)}"
    return text, fraction


class _TerminalBar:
    """A bar on stderr, redrawn in place with a carriage return; erased at the end."""

    width = 30

    def __init__(self, stream):
        self.stream = stream

    def draw(self, task, done, total, seconds, finished=False):
        if finished:
            return
        text, fraction = describe(task, done, total, seconds)
        filled = int(fraction * self.width)
        name, rest = text.split(" ", 1) if " " in text else (text, "")
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{name} [{bar}] {rest}\x1b[K")
        self.stream.flush()

    def close(self):
        self.stream.write("\r\x1b[2K")
        self.stream.flush()


class _NotebookBar:
    """An HTML <progress> bar in the output of the running cell, updated in place (IPython's
    display_id); it stays at the end, showing the work done and the time it took."""

    def __init__(self):
        self.handle = None

    def draw(self, task, done, total, seconds, finished=False):
        from IPython.display import HTML, display
        text, fraction = describe(task, done, total, seconds)
        if finished:
            text = f"{task}: {done}/{total} in {_short_duration(seconds)}"
        import html
        page = HTML(f'<div class="assay-progress"><progress value="{done}" max="{max(total, 1)}" '
                    f'style="width: 20em"></progress> {html.escape(text)}</div>')
        if self.handle is None:
            self.handle = display(page, display_id=True)
        else:
            self.handle.update(page)

    def close(self):
        pass


def _in_notebook():
    """Whether this runs in an IPython kernel (Jupyter), without importing IPython."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _stderr_is_terminal():
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


class _StepRecorder:
    """The recorder's interface for work counted in Python: one bar of `total` steps."""

    def __init__(self, task, total):
        self.task, self.total, self.done = task, total, 0
        self.lock = threading.Lock()  # steps may come from several threads (joblib)

    def install(self):
        pass

    def uninstall(self):
        pass

    def step(self, n=1):
        with self.lock:
            self.done = min(self.total, self.done + n)

    def latest(self):
        with self.lock:
            return 1, self.task, self.done, self.total, self.done < self.total


class _Poller:
    """Polls the recorder on a daemon thread and draws each new state on `drawer`."""

    def __init__(self, drawer, recorder=None):
        self.drawer = drawer
        self.recorder = _assay._ProgressRecorder() if recorder is None else recorder
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="assay-progress", daemon=True)
        self.bar = 0  # the bars started so far; a new one restarts the clock
        self.start = time.monotonic()
        self.last = None

    def __enter__(self):
        self.recorder.install()
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.recorder.uninstall()
        try:
            if exc[0] is None:
                self._draw(finished=True)
        finally:
            self.drawer.close()
        return False

    def _run(self):
        while not self.stop.wait(_POLL_SECONDS):
            self._draw()

    def _draw(self, finished=False):
        started, task, done, total, running = self.recorder.latest()
        if started == 0:
            return  # nothing reported (yet)
        if started != self.bar:
            self.bar, self.start = started, time.monotonic()
        state = (started, done, total, running, finished)
        if state == self.last and not finished:
            return
        self.last = state
        self.drawer.draw(task, done, total, time.monotonic() - self.start, finished=finished)


def _drawer(progress):
    """The drawer for this process's output, or None (nothing to draw on, or progress off)."""
    if not progress:
        return None
    if _in_notebook():
        return _NotebookBar()
    if _stderr_is_terminal():
        return _TerminalBar(sys.stderr)
    return None


@contextlib.contextmanager
def counting(progress, task, total):
    """Draws the progress of work done in Python: call the yielded function after each step.

    Parameters
    ----------
    progress : bool
        False: nothing is drawn.
    task : str
        The bar's name.
    total : int
        The number of steps.

    Yields
    ------
    callable
        ``step(n=1)``: n more steps are done (thread-safe).
    """
    recorder = _StepRecorder(task, int(total))
    if progress and _active.acquire(blocking=False):
        try:
            drawer = _drawer(progress)
            if drawer is None:
                yield recorder.step
            else:
                with _Poller(drawer, recorder):
                    yield recorder.step
        finally:
            _active.release()
    else:
        yield recorder.step


@contextlib.contextmanager
def reporting(progress=True):
    """Draws the progress of the library's long work done inside the block.

    Parameters
    ----------
    progress : bool, default=True
        False: nothing is drawn (and nothing recorded).

    Yields
    ------
    bool
        Whether a bar is drawn (an IPython kernel or a terminal on stderr, and no outer block
        drawing already).
    """
    if progress and _active.acquire(blocking=False):
        try:
            drawer = _drawer(progress)
            if drawer is None:
                yield False
            else:
                with _Poller(drawer):
                    yield True
        finally:
            _active.release()
    else:
        yield False
