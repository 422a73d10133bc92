"""Who may open the policy pages: policy admins. Anonymous users sign in; other roles get 403."""

from __future__ import annotations

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role

policy_admin_required = role_required(Role.POLICY_ADMIN, refusal="policy pages are for policy admins")
