"""The transactional outbox: a task is committed with the change that needs it, then handed to the broker.

A caller is told its work was accepted exactly when the rows are committed, whether or not the broker
answers at that moment; the relay (`manage.py outbox_relay`) hands over whatever the broker has not got.
"""
