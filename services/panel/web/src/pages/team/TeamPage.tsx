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

/** One user; an owner changes the role (a select shown on request) or removes the user. */
function MemberRow({ member, isOwner, isSelf }: { member: TeamUser; isOwner: boolean; isSelf: boolean }) {
  const meta = useMeta();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [role, setRole] = useState<Role>(member.role);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.team });
  const change = useMutation({
    mutationFn: () => panelApi.team.changeRole(member.id, role),
    onSuccess: () => {
      setEditing(false);
      refresh();
      // One's own role changes what this panel may show.
      if (isSelf) void queryClient.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
  const remove = useMutation({ mutationFn: () => panelApi.team.remove(member.id), onSuccess: refresh });
  return (
    <tr>
      <td className="wrap">
        {member.email}
        {isSelf ? <span className="muted"> (you)</span> : null}
      </td>
      <td>
        {editing ? (
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
                setEditing(false);
                setRole(member.role);
                change.reset();
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          member.role
        )}
        <ErrorMessage error={change.error} />
      </td>
      <td>{formatTime(member.created_at)}</td>
      {isOwner ? (
        <td>
          <div className="row-actions">
            {editing ? null : (
              <button type="button" className="secondary small" aria-label={`Change role of ${member.email}`} onClick={() => setEditing(true)}>
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
        </td>
      ) : null}
    </tr>
  );
}

export function TeamPage() {
  usePageTitle('Team');
  const user = useUser();
  const isOwner = user.role === 'owner';
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
            columns={[{ label: 'Email' }, { label: 'Role' }, { label: 'Added' }, isOwner && { label: 'Actions' }]}
            items={members}
            empty="No members."
            row={(m) => (
              <MemberRow key={`${m.id}:${m.role}`} member={m} isOwner={isOwner} isSelf={m.id === user.id} />
            )}
          />
          <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
        </QueryState>
      </section>
    </>
  );
}
