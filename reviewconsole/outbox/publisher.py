"""Handing a task message to the broker: the message `Task.apply_async` sends, at a third of its CPU.

On a submission, `apply_async` cost the web worker about 0.55 ms of CPU, seven times the LPUSH that hands
the message to Redis and a sixth of the whole request. Most of it repeats the same work for every message:
checking and merging the task's options, a dozen reads of Celery's layered settings (about 10 us each),
routing the name through CELERY_TASK_ROUTES, borrowing a producer from the pool and declaring the queue
again, and building a result object nobody reads. Here the route, the options and the settings of each task
are resolved once per process, and the process holds its producer. What is left for each message is
Celery's own `create_task_message` and `send_task_message`, so the message is the one apply_async sends:
the same queue and priority, headers, body and properties, and the same signals (the tests compare the two
on the broker).

Inside a worker's task a message also names the task that sent it (root and parent ids, and its trail):
there the message goes through apply_async itself.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from celery import Celery, Task
from celery.local import maybe_evaluate
from celery.utils.nodenames import anon_nodename
from celery.utils.saferepr import saferepr
from kombu.utils.uuid import uuid


def task_send(task: Task, args: Sequence[Any], *, priority: int | None = None) -> None:
    """Send `task` with `args` to its queue at `priority` (None: the queue's first list), as
    `task.apply_async(args=args, priority=priority, retry=False)` does: a broker that does not answer is an
    error at once, with no retry."""
    # A task as `app.task` defines it is a proxy, every attribute read through it a function call: read it once.
    task = maybe_evaluate(task)
    app = task.app
    if app.current_worker_task is not None or getattr(task, "_dump_pydantic_arguments", None) is not None:
        task.apply_async(args=args, priority=priority, retry=False)  # type: ignore[arg-type]  # None is Celery's default
        return
    if task.typing:
        # apply_async's check: arguments the task cannot take are refused here, not by the worker.
        task.__header__(*args)  # type: ignore[attr-defined]  # set by app.task for every task
    route = _route(task)
    options = dict(route.options)
    if priority is not None:
        options["priority"] = priority
    task_id = uuid()
    with _held_lock:
        held = _held_producer(app)
        message = app.amqp.create_task_message(
            task_id, task.name, args, {}, expires=route.expires, time_limit=route.time_limit,
            soft_time_limit=route.soft_time_limit, create_sent_event=route.sent_event, reply_to=app.thread_oid,
            # celery-types has shadow_name return None (the default does); a task may name itself otherwise.
            shadow=task.shadow_name(args, {}, options),  # type: ignore[func-returns-value,arg-type]
            ignore_result=route.ignore_result,
            # As Celery writes it: no arguments as ().
            argsrepr=saferepr(args or (), app.amqp.argsrepr_maxsize, maxlevels=route.repr_levels),
            kwargsrepr=route.kwargsrepr, origin=held.origin,
        )
        # The queue is declared once per held producer (kombu's cache asks again for every message).
        declare: list[Any] | None = [] if task.name in held.declared else None
        try:
            if not route.ignore_result:
                app.backend.on_task_call(held.producer, task_id)
            app.amqp.send_task_message(held.producer, task.name, message, retry=False, declare=declare, **options)
        except BaseException:
            _held_release()
            raise
        held.declared.add(task.name)


# --- Resolved once ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Route:
    """What apply_async resolves anew for every message of a task, and is the same for each."""

    options: dict[str, Any]
    """The queue and the task's own options, routed, as send_task hands them to send_task_message."""
    time_limit: float | None
    soft_time_limit: float | None
    expires: Any
    ignore_result: bool
    sent_event: bool
    """Whether a task-sent event is published too (task_send_sent_event)."""
    repr_levels: int
    kwargsrepr: str


_routes: dict[str, _Route] = {}


def _route(task: Task) -> _Route:
    route = _routes.get(task.name)
    if route is not None:
        return route
    app = task.app
    if task.soft_time_limit and task.time_limit and task.soft_time_limit > task.time_limit:
        raise ValueError("soft_time_limit must be less than or equal to time_limit")
    options = dict(task._get_exec_options(), priority=None)  # type: ignore[attr-defined]  # Celery's own
    time_limit = options.pop("time_limit", None)
    soft_time_limit = options.pop("soft_time_limit", None)
    expires = options.pop("expires", None)
    # The console's routes go by task name alone (CELERY_TASK_ROUTES), so one task's route holds for every message.
    # celery-types wants the task's class here; send_task passes the task itself, as here.
    options = app.amqp.router.route(options, task.name, (), {}, task)  # type: ignore[arg-type]
    levels = app.conf.task_repr_maxlevels
    route = _routes[task.name] = _Route(
        options=options, time_limit=time_limit, soft_time_limit=soft_time_limit, expires=expires,
        ignore_result=bool(task.ignore_result), sent_event=bool(app.conf.task_send_sent_event), repr_levels=levels,
        kwargsrepr=saferepr({}, app.amqp.kwargsrepr_maxsize, maxlevels=levels),
    )
    return route


@dataclass
class _Held:
    """The producer this process sends through, taken from the app's pool and kept."""

    pool: Any
    pid: int
    producer: Any
    origin: str
    """The message's `origin` header: this process, as Celery names it."""
    declared: set[str] = field(default_factory=set)


_held: _Held | None = None
# One producer for every thread of the process: a kombu channel is not to be shared by two at once.
_held_lock = threading.Lock()


def _held_producer(app: Celery[Any]) -> _Held:
    global _held
    pool, pid = app.producer_pool, os.getpid()
    # A new pool (the broker changed) or a forked child: the producer held is not this one's to use.
    if _held is None or _held.pool is not pool or _held.pid != pid:
        producer = pool.acquire(block=True, timeout=app.conf.broker_pool_acquire_timeout)
        _held = _Held(pool=pool, pid=pid, producer=producer, origin=anon_nodename())
    return _held


def _held_release() -> None:
    """After a failed send: back to the pool, as apply_async leaves it; the next send takes one again."""
    global _held
    if _held is not None:
        held, _held = _held, None
        held.producer.release()
