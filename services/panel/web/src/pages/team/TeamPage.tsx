import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, panelApi, queryKeys } from '../../api/panel-api';
import type { Role, TeamUser } from '../../api/types';
import { useMeta, useUser } from '../../app/session';
import { confirmed } from '../../components/confirm';
import { SelectField, TextField } from '../../components/Field';
import { formatTime } from '../../components/format';
import { ListTable } from '../../components/ListTable';
import { LoadMore } from '../../components/LoadMore';
import { ErrorMessage, errorText, QueryState } from '../../components/QueryState';
import { usePageTitle } from '../../components/usePageTitle';
import { usePaged } from '../../components/usePaged';

function AddUserForm() {
  const meta = useMeta();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [problems, setProblems] = useState<{ email?: string; password?: string }>({});
  const [done, setDone] = useState('');
  const add = useMutation({
    mutationFn: () => panelApi.team.add(email.trim(), password, role),
    onSuccess: (user) => {
      setDone(`${user.email} was added as ${user.role}.`);
      setEmail('');
      setPassword('');
      setRole('member');
      void queryClient.invalidateQueries({ queryKey: queryKeys.team });
    },
  });
  const serverError = add.error instanceof ApiError ? add.error : undefined;
  const fieldError = (field: string) => (serverError?.param === field ? errorText(serverError) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone('');
    const found = { email: email.trim() ? undefined : 'Enter an email.', password: password ? undefined : 'Enter an initial password.' };
    setProblems(found);
    if (found.email || found.password) return;
    add.mutate();
  };
  return (
    <section className="card">
      <h2 id="add-user-title">Add a user</h2>
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField label="Email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} error={problems.email ?? fieldError('email')} />
        <TextField
          label="Initial password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={problems.password ?? fieldError('password')}
          hint="Share it with the user safely; they sign in with it."
        />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} error={fieldError('role')}>
          {meta.roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </SelectField>
        <div className="actions">
          <button type="submit" disabled={add.isPending}>
            Add user
          </button>
        </div>
      </form>
      {add.error && !['email', 'password', 'role'].includes(serverError?.param ?? '') ? (
        <p className="error" role="alert">
          {errorText(add.error)}
        </p>
      ) : null}
      <p role="status" className="ok">
        {done}
      </p>
    </section>
  );
}

/** A user's role; for an owner who chose "Change role", a select with Save and Cancel. */
function RoleCell({ member, isSelf, editing, onDone }: { member: TeamUser; isSelf: boolean; editing: boolean; onDone: () => void }) {
  const meta = useMeta();
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(member.role);
  const change = useMutation({
    mutationFn: () => panelApi.team.changeRole(member.id, role),
    onSuccess: () => {
      onDone();
      void queryClient.invalidateQueries({ queryKey: queryKeys.team });
      // One's own role changes what this panel may show.
      if (isSelf) void queryClient.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
  if (!editing) return <>{member.role}</>;
  return (
    <>
      <form
        className="role-edit"
        onSubmit={(e) => {
          e.preventDefault();
          if (role !== member.role && confirmed(`Make ${member.email} ${role}?`)) change.mutate();
        }}
      >
        <label className="sr-only" htmlFor={`role-${member.id}`}>{`New role for ${member.email}`}</label>
        <select id={`role-${member.id}`} value={role} onChange={(e) => setRole(e.target.value as Role)} autoFocus>
          {meta.roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className="small" disabled={role === member.role || change.isPending}>
          Save
        </button>
        <button
          type="button"
          className="secondary small"
          onClick={() => {
            setRole(member.role);
            change.reset();
            onDone();
          }}
        >
          Cancel
        </button>
      </form>
      <ErrorMessage error={change.error} />
    </>
  );
}

/** An owner's actions on a user: change the role (opens the select in the role's cell), remove. */
function MemberActions({ member, editing, onChangeRole }: { member: TeamUser; editing: boolean; onChangeRole: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({ mutationFn: () => panelApi.team.remove(member.id), onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.team }) });
  return (
    <>
      <div className="row-actions">
        {editing ? null : (
          <button type="button" className="secondary small" aria-label={`Change role of ${member.email}`} onClick={onChangeRole}>
            Change role
          </button>
        )}
        <button
          type="button"
          className="secondary danger small"
          aria-label={`Remove ${member.email}`}
          disabled={remove.isPending}
          onClick={() => {
            if (confirmed(`Remove ${member.email} from the team? Their sessions end at once.`)) remove.mutate();
          }}
        >
          Remove
        </button>
      </div>
      <ErrorMessage error={remove.error} />
    </>
  );
}

export function TeamPage() {
  usePageTitle('Team');
  const user = useUser();
  const isOwner = user.role === 'owner';
  const [editing, setEditing] = useState<string | null>(null);
  const { query: list, items: members } = usePaged<TeamUser>(queryKeys.team, (cursor) => panelApi.team.list(cursor));
  return (
    <>
      <div className="page-head">
        <h1>Team</h1>
      </div>
      {isOwner ? <AddUserForm /> : null}
      <section className="card">
        <QueryState isPending={list.isPending} error={list.error} label="Team">
          <ListTable
            caption="Team"
            columns={[
              {
                label: 'Email',
                phone: 'title-wide',
                cellClass: () => 'wrap',
                cell: (m) => (
                  <>
                    {m.email}
                    {m.id === user.id ? <span className="muted"> (you)</span> : null}
                  </>
                ),
              },
              { label: 'Role', cell: (m) => <RoleCell key={`${m.id}:${m.role}`} member={m} isSelf={m.id === user.id} editing={editing === m.id} onDone={() => setEditing(null)} /> },
              { label: 'Added', cell: (m) => formatTime(m.created_at) },
              isOwner && { label: 'Actions', phone: 'actions', cell: (m) => <MemberActions member={m} editing={editing === m.id} onChangeRole={() => setEditing(m.id)} /> },
            ]}
            items={members}
            rowKey={(m) => m.id}
            empty="No members."
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
      </section>
    </>
  );
}
