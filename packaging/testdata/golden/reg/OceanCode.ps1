# OceanCode policy serial 42, payload sha256 f7b1f5258dbbcf3c9b2744403ef09707eaf3e5218fcc3432b4d335e87fb2dff5.
# Written by oceanadmin package. Run as an administrator (Intune: a platform script, 64-bit PowerShell).
$ErrorActionPreference = 'Stop'
$key = 'HKLM:\SOFTWARE\Policies\OceanCode'
New-Item -Path $key -Force | Out-Null
New-ItemProperty -Path $key -Name 'Managed' -PropertyType String -Force -Value '{"sandbox":{"mode":"workspace-write","deny":["/srv/secrets"]},"permission":{"bash":{"go test:*":"allow"}},"child_env":{"set":{"GREETING":"h\u00e9llo \"world\""}}}' | Out-Null
New-ItemProperty -Path $key -Name 'Requirements' -PropertyType String -Force -Value '{"payloadType":"application/vnd.oceancode.requirements+json","payload":"eyJkaXNhYmxlX2J5cGFzc19wZXJtaXNzaW9ucyI6dHJ1ZSwiZXhwaXJlc19hdCI6IjIwMjctMTEtMjlUMTI6MDA6MDBaIiwiaXNzdWVkX2F0IjoiMjAyNi0xMS0yOVQxMjowMDowMFoiLCJtaW5fc2FuZGJveF9tb2RlIjoid29ya3NwYWNlLXdyaXRlIiwib3JnIjoiQWNtZSAmIFNvbnMgPGl0PiIsInJ1bGVzIjp7ImFzayI6WyJCYXNoKGdpdCBwdXNoOiopIl0sImRlbnkiOlsiQmFzaChjdXJsOiopIl19LCJzY2hlbWFfdmVyc2lvbiI6MSwic2VyaWFsIjo0Mn0=","signatures":[{"keyid":"bf15ceee97a9489c69afcffb52a63ee9cbadb61ec3a7684cabd23498a53178e5","sig":"8Kvx7Z4RK3xcldl0Od8GmwZ7I3LpMPzwfBG8ol7rq9giAiiVC5weP+QufS4oFelI96D0FKX+s92rTdqkj6asAw=="}]}' | Out-Null
New-ItemProperty -Path $key -Name 'TrustedKeys' -PropertyType MultiString -Force -Value @(
  '# OceanCode fleet signing keys'
  'ed25519:amesanbvnfrW50ysVJqlbTPLTZ6feDax3P/b76xR1wE= test admin'
) | Out-Null
