import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { AccountPage } from '../pages/account/AccountPage';
import { AccountsPage } from '../pages/accounts/AccountsPage';
import { AuditLogPage } from '../pages/audit/AuditLogPage';
import { EventsPage } from '../pages/events/EventsPage';
import { KeysPage } from '../pages/keys/KeysPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { PayoutsPage } from '../pages/payouts/PayoutsPage';
import { ProgramsPage } from '../pages/programs/ProgramsPage';
import { SignInPage } from '../pages/SignInPage';
import { TeamPage } from '../pages/team/TeamPage';
import { WebhookPage } from '../pages/webhooks/WebhookPage';
import { WebhooksPage } from '../pages/webhooks/WebhooksPage';
import { Layout } from './Layout';
import { createQueryClient } from './query-client';

/** Every page has its own URL under /panel; the server answers index.html for each of them. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/panel">
        <Routes>
          <Route path="sign-in" element={<SignInPage />} />
          <Route element={<Layout />}>
            <Route index element={<Navigate to="/accounts" replace />} />
            <Route path="accounts" element={<AccountsPage />} />
            <Route path="accounts/:number" element={<AccountPage />} />
            <Route path="payouts" element={<PayoutsPage />} />
            <Route path="programs" element={<ProgramsPage />} />
            <Route path="webhooks" element={<WebhooksPage />} />
            <Route path="webhooks/:id" element={<WebhookPage />} />
            <Route path="events" element={<EventsPage />} />
            <Route path="api-keys" element={<KeysPage />} />
            <Route path="team" element={<TeamPage />} />
            <Route path="audit" element={<AuditLogPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
