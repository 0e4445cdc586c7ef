// +groupName=one.example.com
// +groupName=two.example.com
// +versionName=v1

export interface Nothing {
  a?: string;
}
