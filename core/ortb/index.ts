export { convertDownTo25, convertUpTo26 } from './convert.js';
