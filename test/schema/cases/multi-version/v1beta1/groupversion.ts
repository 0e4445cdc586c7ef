// API types of versions.example.com/v1beta1.
// +groupName=versions.example.com

/** The API group of the types in this folder. */
export const GROUP = 'versions.example.com';
