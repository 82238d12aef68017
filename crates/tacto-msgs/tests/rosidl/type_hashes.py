"""Prints `type_name hash` for every type of one interface package folder, one per line, as
rosidl computes them when a package builds: rosidl_adapter turns the .msg/.srv/.action files
into .idl, rosidl_generator_type_description hashes them (with the .json files of the packages
they use, from the virtualenv's share/ folder, where the wheels install them).

    python type_hashes.py PACKAGE_FOLDER WORK_FOLDER

tests/type_hash.rs runs it for the shipped packages that have no wheel (example_interfaces,
tf2_msgs), whose hashes no installed .json file gives.
"""

import contextlib
import json
import pathlib
import sys

from rosidl_adapter.action import convert_action_to_idl
from rosidl_adapter.msg import convert_msg_to_idl
from rosidl_adapter.srv import convert_srv_to_idl
from rosidl_generator_type_description import generate_type_hash

CONVERTERS = {'msg': convert_msg_to_idl, 'srv': convert_srv_to_idl,
              'action': convert_action_to_idl}
# The packages these use: the generated types of services and actions use the first three,
# tf2_msgs' messages geometry_msgs' and std_msgs'.
DEPENDENCIES = ['builtin_interfaces', 'service_msgs', 'unique_identifier_msgs', 'geometry_msgs',
                'std_msgs']


def main(package_dir, work_dir):
    package = package_dir.name
    idl_dir = work_dir / 'idl'
    out_dir = work_dir / 'out'
    # The wheels install their share/ folders in the virtualenv's prefix.
    share = pathlib.Path(sys.prefix) / 'share'
    idl_tuples = []
    # The converters report each file on stdout, which carries the hashes here.
    with contextlib.redirect_stdout(sys.stderr):
        for kind, convert in CONVERTERS.items():
            for path in sorted((package_dir / kind).glob(f'*.{kind}')):
                (idl_dir / kind).mkdir(parents=True, exist_ok=True)
                convert(package_dir, package, path.relative_to(package_dir), idl_dir / kind)
                idl_tuples.append(f'{idl_dir}:{kind}/{path.stem}.idl')
    arguments = work_dir / 'arguments.json'
    arguments.write_text(json.dumps({
        'package_name': package,
        'output_dir': str(out_dir),
        'idl_tuples': idl_tuples,
        'include_paths': [f'{p}:{share / p}' for p in DEPENDENCIES],
    }))
    hashes = {}
    for path in generate_type_hash(str(arguments)):
        for entry in json.loads(path.read_text())['type_hashes']:
            hashes[entry['type_name']] = entry['hash_string']
    for type_name in sorted(hashes):
        if type_name.startswith(f'{package}/'):
            print(type_name, hashes[type_name])


if __name__ == '__main__':
    main(pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve())
