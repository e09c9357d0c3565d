import { Link } from 'react-router';
import { usePageTitle } from '../../components/page-title';

/** A console path that names no page. */
export function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <>
      <h1>This page does not exist</h1>
      <p>
        <Link to="/">Go to the console home</Link>
      </p>
    </>
  );
}
