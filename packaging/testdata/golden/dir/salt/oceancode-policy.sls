# OceanCode policy serial 42, payload sha256 f7b1f5258dbbcf3c9b2744403ef09707eaf3e5218fcc3432b4d335e87fb2dff5.
# Salt state (written by oceanadmin package --format dir): put this
# directory in the file roots as oceancode-policy/. check_cmd runs with the
# new file's temporary path appended, before it replaces the old one.
/etc/oceancode:
  file.directory:
    - user: root
    - group: root
    - mode: '0755'

/etc/oceancode/trusted_keys:
  file.managed:
    - source: salt://oceancode-policy/etc/oceancode/trusted_keys
    - user: root
    - group: root
    - mode: '0644'
    - check_cmd: oceanadmin fingerprint
    - require:
      - file: /etc/oceancode

/etc/oceancode/requirements.json:
  file.managed:
    - source: salt://oceancode-policy/etc/oceancode/requirements.json
    - user: root
    - group: root
    - mode: '0644'
    - check_cmd: oceanadmin verify --pubkey /etc/oceancode/trusted_keys
    - require:
      - file: /etc/oceancode/trusted_keys

/etc/oceancode/managed.json:
  file.managed:
    - source: salt://oceancode-policy/etc/oceancode/managed.json
    - user: root
    - group: root
    - mode: '0644'
    - check_cmd: oceanadmin validate --kind managed
