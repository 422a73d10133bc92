"""A task waiting to be handed to the broker, or handed over and not yet taken by a worker."""

from __future__ import annotations

from django.db import models


class Message(models.Model):
    """One task to run, written in the transaction of the change that needs it.

    `broker` names the broker instance the message was handed to ("" until one took it). A worker deletes
    the row when it starts the task. The relay sends again what no broker has, and what a broker that has
    since restarted (and so may have lost it) had.
    """

    task = models.CharField(max_length=200)
    args = models.JSONField(default=list)
    priority = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Its place in its queue, 0 (first) to 9; empty: 0"
    )
    broker = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sends = models.PositiveIntegerField(default=0, help_text="Times it was handed to a broker")
    last_error = models.TextField(blank=True)

    class Meta:
        indexes = [models.Index(fields=["broker", "id"], name="outbox_by_broker")]

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)}"
