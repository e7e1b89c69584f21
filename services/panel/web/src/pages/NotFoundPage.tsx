import { Link } from 'react-router';
import { usePageTitle } from '../components/usePageTitle';

export function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <section className="card">
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <Link to="/accounts">Go to the accounts</Link>.
      </p>
    </section>
  );
}
