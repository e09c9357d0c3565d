import mark from '../favicon.svg';
import styles from './Brand.module.css';

/** The product's mark and name. */
export function Brand({ inverse = false }: { inverse?: boolean }) {
  return (
    <span className={`${styles.brand} ${inverse ? styles.inverse : ''}`}>
      <img src={mark} alt="" width={28} height={28} />
      <span>Decisioning operations</span>
    </span>
  );
}
